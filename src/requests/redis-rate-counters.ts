// The rate limit's counters in Redis (src/requests/rate-limits.ts), counted
// as the plugin's own Redis store counts them (a counter per key, its window
// starting at its first request), with one difference: the requests of one
// turn of the event loop that draw on the same counter add to it with one
// script (src/redis/one-command-per-turn.ts), each told the count it would
// have been told alone, in the order they came. An organization's dashboard
// polled by 200 clients is a few scripts a turn instead of 200. The counters'
// names are the plugin store's: instances of a version before count on the
// same counters during a rolling deploy.
import type { FastifyRateLimitStore } from '@fastify/rate-limit';
import { OneCommandPerTurn } from '../redis/one-command-per-turn.ts';
import type { RedisClient } from '../redis/shared-redis.ts';

type Count = Parameters<FastifyRateLimitStore['incr']>;
type Child = Parameters<FastifyRateLimitStore['child']>[0];

/** Adds ARGV[2] to the counter; a new counter's window (ARGV[1] ms) starts now. Answers the count and the window's ms left. */
const ADD = `
  local added = tonumber(ARGV[2])
  local current = redis.call('INCRBY', KEYS[1], added)
  local ttl = tonumber(ARGV[1])
  if current == added then
    redis.call('PEXPIRE', KEYS[1], ttl)
  else
    ttl = redis.call('PTTL', KEYS[1])
  end
  return {current, ttl}
`;
const READ = `
  local current = redis.call('GET', KEYS[1])
  if not current then return {0, 0} end
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl < 0 then ttl = 0 end
  return {tonumber(current), ttl}
`;

type Counted = [current: number, ttl: number];
/** The scripts, defined on the client once (sent by their SHA, as the plugin's are). */
interface CounterScripts {
  gatewayRateAdd(key: string, window: number, added: number): Promise<Counted>;
  gatewayRateRead(key: string): Promise<Counted>;
}

function withScripts(redis: RedisClient): CounterScripts {
  const scripted = redis as RedisClient & Partial<CounterScripts>;
  if (!scripted.gatewayRateAdd) {
    redis.defineCommand('gatewayRateAdd', { numberOfKeys: 1, lua: ADD });
    redis.defineCommand('gatewayRateRead', { numberOfKeys: 1, lua: READ });
  }
  return scripted as RedisClient & CounterScripts;
}

export class RedisRateCounters implements FastifyRateLimitStore {
  /** Counts per key and window (a key is counted with one window: its route's). */
  private readonly additions: OneCommandPerTurn<Counted>;
  /** The window of each key waiting in `additions`. */
  private readonly windows = new Map<string, number>();

  private readonly redis: CounterScripts;

  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {
    this.redis = withScripts(client);
    this.additions = new OneCommandPerTurn((key, count) => {
      const window = this.windows.get(key) ?? 0;
      this.windows.delete(key);
      return this.redis.gatewayRateAdd(key, window, count);
    });
  }

  incr(...[key, done, timeWindow]: Count) {
    const counter = this.prefix + key;
    this.windows.set(counter, timeWindow);
    this.additions.join(counter).then(
      ({ result: [current, ttl], count, index }) => done(null, { current: current - count + index + 1, ttl }),
      (error: Error) => done(error, { current: 0, ttl: 0 }),
    );
  }

  read(...[key, done]: Count) {
    this.redis.gatewayRateRead(this.prefix + key).then(
      ([current, ttl]) => done(null, { current, ttl }),
      (error: Error) => done(error, { current: 0, ttl: 0 }),
    );
  }

  /** A route's own limit (the agent update): its counters apart, as the plugin's store names them. */
  child(routeOptions: Child) {
    // The plugin hands its stores the route as `routeInfo` (its types do not say so).
    const { method, url } = (routeOptions as Child & { routeInfo: { method: string; url: string } }).routeInfo;
    return new RedisRateCounters(this.client, `${this.prefix}${method}${url}-`);
  }
}
