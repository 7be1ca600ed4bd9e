// Reads served by PostgreSQL streaming replicas (DATABASE_REPLICA_URLS), without
// losing read-your-writes. The engine's own facts decide, as GitLab's load
// balancer does: after a write, the primary's WAL position (pg_current_wal_lsn)
// is the write's token (the X-Consistency header, and remembered for its API
// key); a read that must see it goes to a replica only once that replica has
// replayed past it (pg_last_wal_replay_lsn), else to the primary.
//
// A periodic check samples the primary's position and each replica's replay
// position, on the injectable clock. A replica's lag is how long ago the
// primary was where the replica is now (the newest sample at or below its
// replay position); past DATABASE_REPLICA_MAX_LAG_MS, or failing to answer,
// it is left out until a later check finds it back. Only reads are routed
// here: writes, transactions, the engine, the webhook worker and LISTEN
// keep the primary's Database (docs/scaling.md).

import type { Clock } from '../clock.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { RedisHealth } from '../redis/redis-health.ts';
import type { RedisClient } from '../redis/shared-redis.ts';
import { type Database, openDatabase, type SqlRunner } from './database.ts';
import { parseLsn } from './lsn.ts';
import { replayPosition } from './sql/replay-position.ts';
import { walPosition } from './sql/wal-position.ts';
import { isTransientDatabaseError } from './transient.ts';
import { WriteTokens } from './write-tokens.ts';

export interface ReplicaSettings {
  /** A replica further behind than this is left out. */
  maxLagMs: number;
  /** How often the replicas' positions are checked. */
  checkMs: number;
}

/**
 * An HTTP request's read-your-writes facts (src/requests/consistency.ts): the X-Consistency token it
 * brought, and the API key that wrote through it, if one did.
 */
export interface RequestConsistency {
  readonly token: string | null;
  writer: string | null;
}

/** What /metrics and /ready say of a replica. */
export interface ReplicaState {
  /** Its host, port and database: never its credentials. */
  readonly name: string;
  /** Whether reads go to it now. */
  readonly up: boolean;
  /** How far behind the primary it was at the last check (ms); null while it does not answer. */
  readonly lagMs: number | null;
}

interface Replica extends ReplicaState {
  /** Its connections, failing over to the primary statement by statement. */
  readonly reads: Database;
  /** Its own connections, for the checks. */
  readonly own: Database;
  up: boolean;
  lagMs: number | null;
  /** The replay position last read from it. */
  replayed: bigint;
}

/** The replica's address as metrics and logs may show it. */
function replicaName(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

/** The property of a Prisma client that holds `model`'s operations (`CallRecord` → `callRecord`). */
const delegateOf = (model: string) => model.charAt(0).toLowerCase() + model.slice(1);

/**
 * The replica's database, each statement of which runs on the primary instead when the replica fails under it
 * (a lost connection, a server shutting down): the request is answered, and the replica is left out at once.
 * The arguments that reach here are the tenant's (src/db/tenant.ts extends this client), so the primary
 * runs the same scoped operation.
 */
function failingOver(replica: Database, primary: Database, failed: () => void): Database {
  const prisma = replica.prisma.$extends({
    name: 'replica-failover',
    query: {
      async $allOperations({ model, operation, args, query }) {
        try {
          return await query(args);
        } catch (error) {
          if (!model || !isTransientDatabaseError(error)) throw error;
          failed();
          const delegate = (primary.prisma as unknown as Record<string, Record<string, (a: unknown) => unknown>>)[
            delegateOf(model)
          ];
          return delegate![operation]!(args);
        }
      },
    },
  }) as unknown as PrismaClient;
  const sql: SqlRunner = {
    async query(text, params, options) {
      try {
        return await replica.sql.query(text, params, options);
      } catch (error) {
        if (!isTransientDatabaseError(error)) throw error;
        failed();
        return primary.sql.query(text, params, options);
      }
    },
    exec: (text) => primary.sql.exec(text),
    // A transaction stays on the primary.
    transaction: (work) => primary.sql.transaction(work),
  };
  return { ...replica, prisma, sql };
}

export class ReadReplicas {
  private readonly replicas: Replica[];
  /** The primary's position at each check: [clock time, position], oldest first. */
  private samples: [number, bigint][] = [];
  private next = 0;
  private readonly stopping = new AbortController();
  private loop: Promise<void> | null = null;
  private readonly listeners = new Set<(degraded: boolean) => void>();
  private reported = false;
  /** The positions of API keys' last writes: in this instance's memory, and in Redis once shared. */
  private writes = new WriteTokens();

  constructor(
    private readonly primary: Database,
    replicas: { url: string; db: Database }[],
    private readonly settings: ReplicaSettings,
    private readonly clock: Clock,
  ) {
    this.replicas = replicas.map(({ url, db }) => {
      const replica: Replica = {
        name: replicaName(url),
        own: db,
        reads: db,
        up: false,
        lagMs: null,
        replayed: 0n,
      };
      return Object.assign(replica, { reads: failingOver(db, primary, () => this.leaveOut(replica)) });
    });
  }

  /** Keeps the keys' last writes in Redis too, for reads on the other instances. */
  shareWrites(redis: RedisClient, health: RedisHealth): void {
    // Past the bound and a check's period, every replica still in rotation has replayed a write.
    this.writes = new WriteTokens({ redis, health, ttlMs: this.settings.maxLagMs + 2 * this.settings.checkMs });
  }

  /** Each replica's state, in the order DATABASE_REPLICA_URLS names them. */
  get states(): readonly ReplicaState[] {
    return this.replicas;
  }

  /** Whether some replica is left out (reads it would take go elsewhere). */
  get degraded(): boolean {
    return this.replicas.some((replica) => !replica.up);
  }

  /** Calls `listener` with each change of `degraded`; returns the function that stops it. */
  onChange(listener: (degraded: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Checks now, then every `checkMs` on the clock, until `close`. */
  async start(): Promise<void> {
    await this.check();
    const signal = this.stopping.signal;
    this.loop = (async () => {
      while (!signal.aborted) {
        await this.clock
          .sleepUntil(new Date(this.clock.now().getTime() + this.settings.checkMs), signal)
          .catch(() => {});
        if (!signal.aborted) await this.check();
      }
    })();
  }

  /**
   * One check: the primary's position, then each replica's replay position and lag. A replica that does not
   * answer, is not a standby, or lags past the bound is left out; one within it is taken back.
   */
  async check(): Promise<void> {
    const at = this.clock.now().getTime();
    let position: bigint;
    try {
      position = parseLsn(await walPosition(this.primary.sql))!;
    } catch {
      // Without the primary's position no lag can be judged: the replicas stay as they were.
      return;
    }
    this.samples.push([at, position]);
    // Older samples than the bound (and a check's period) tell nothing more: a replica behind them all is out anyway.
    const horizon = at - this.settings.maxLagMs - 2 * this.settings.checkMs;
    while (this.samples.length > 1 && this.samples[1]![0] <= horizon) this.samples.shift();
    await Promise.all(this.replicas.map((replica) => this.checkReplica(replica, at, position)));
    this.report();
  }

  private async checkReplica(replica: Replica, at: number, primaryPosition: bigint) {
    let replayed: bigint | null;
    try {
      const text = await replayPosition(replica.own.sql);
      replayed = text === null ? null : parseLsn(text);
    } catch {
      replayed = null;
    }
    if (replayed === null) {
      // Away, or not a standby of anything (a promoted replica may be no copy of this primary).
      replica.up = false;
      replica.lagMs = null;
      return;
    }
    replica.replayed = replayed;
    // How long ago the primary was where the replica is now.
    const caughtUpTo = this.samples.findLast(([, position]) => position <= replayed);
    const lagMs = replayed >= primaryPosition ? 0 : at - (caughtUpTo ?? this.samples[0]!)[0];
    replica.lagMs = lagMs;
    replica.up = lagMs <= this.settings.maxLagMs;
  }

  private leaveOut(replica: Replica) {
    replica.up = false;
    replica.lagMs = null;
    this.report();
  }

  private report() {
    if (this.degraded === this.reported) return;
    this.reported = this.degraded;
    for (const listener of this.listeners) listener(this.reported);
  }

  /**
   * Where a read goes: a replica in rotation that has replayed `token` (a client's X-Consistency) and the
   * last write of `apiKeyId`; null (the primary) when none has, or none is in rotation. A token that is no
   * WAL position is not trusted: the primary answers.
   */
  async reader(apiKeyId: string, token?: string | null): Promise<Database | null> {
    let required = 0n;
    if (token !== undefined && token !== null) {
      const position = parseLsn(token);
      if (position === null) return null;
      required = position;
    }
    const own = await this.writes.last(apiKeyId);
    if (own !== null && own > required) required = own;
    const candidates = this.replicas.filter((replica) => replica.up);
    if (candidates.length === 0) return null;
    // Round robin among those in rotation.
    const start = this.next++ % candidates.length;
    const ordered = [...candidates.slice(start), ...candidates.slice(0, start)];
    const ready = ordered.find((replica) => replica.replayed >= required);
    if (ready) return ready.reads;
    // None had replayed it at the last check: ask them now, once each.
    for (const replica of ordered) {
      try {
        const text = await replayPosition(replica.own.sql);
        const replayed = text === null ? null : parseLsn(text);
        if (replayed === null) continue;
        if (replayed > replica.replayed) replica.replayed = replayed;
        if (replayed >= required) return replica.reads;
      } catch {
        this.leaveOut(replica);
      }
    }
    return null;
  }

  /** After a write by `apiKeyId`: the primary's position now, its token, remembered as the key's last write. */
  async wrote(apiKeyId: string): Promise<string> {
    const token = await walPosition(this.primary.sql);
    await this.writes.remember(apiKeyId, parseLsn(token)!);
    return token;
  }

  /** Stops checking and closes the replicas' connections (the primary's are the caller's). */
  async close(): Promise<void> {
    this.stopping.abort();
    await this.loop;
    this.listeners.clear();
    await Promise.all(this.replicas.map((replica) => replica.own.close()));
  }
}

/** Connects to each replica (a pool of `poolSize` each, as the primary's) and checks them once before reads go there. */
export async function openReadReplicas(
  primary: Database,
  urls: string[],
  settings: ReplicaSettings & { poolSize: number },
  clock: Clock,
): Promise<ReadReplicas> {
  const replicas = await Promise.all(
    urls.map(async (url) => ({ url, db: await openDatabase({ kind: 'postgres', url, poolSize: settings.poolSize }) })),
  );
  const reads = new ReadReplicas(primary, replicas, settings, clock);
  await reads.start();
  return reads;
}
