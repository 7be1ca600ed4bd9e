// Opens the storage the configuration names: an embedded PGlite database in
// DATA_DIR, or a PostgreSQL server. The rest of the code sees one interface:
// a Prisma client for the domain and a raw SQL runner for the few statements
// Prisma cannot express (migrations, bulk inserts, SKIP LOCKED claims).
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import type { Storage } from '../config.ts';
import { PrismaClient } from '../generated/prisma/client.ts';
import { tracing } from '../observability/tracing.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { quoteIdentifier } from './parts/identifiers.ts';
import { listen } from './sql/listen.ts';

/** How a statement is sent. */
export interface QueryOptions {
  /**
   * Prepared once per connection and planned from then on as a generic plan
   * when PostgreSQL finds it as cheap (a named statement): for a hot statement
   * whose planning costs much of its execution. `fixed`: its text is one of a
   * few the code writes (POST …/record); `shaped`: one of the many that
   * clients' selections make (a GraphQL connection's subtree), named only
   * while SHAPED_NAMED_STATEMENTS are not all taken, so that no client's
   * shapes leave the fixed ones without a name. Embedded, the option changes
   * nothing.
   */
  prepared?: 'fixed' | 'shaped';
}

export interface SqlQueryable {
  query<Row = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
    options?: QueryOptions,
  ): Promise<{ rows: Row[] }>;
  /** Runs a script of one or more statements without parameters. */
  exec(sql: string): Promise<void>;
}

export interface SqlRunner extends SqlQueryable {
  /** Runs `work` in one transaction on one connection: all of it commits or none. */
  transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T>;
}

export interface Database {
  prisma: PrismaClient;
  sql: SqlRunner;
  storage: Storage;
  /** Calls `listener` for every SQL statement sent, through Prisma or `sql` (metrics, statement-count tests). */
  onStatement(listener: StatementListener): () => void;
  /**
   * Follows a channel of PostgreSQL's NOTIFY: on PostgreSQL on a connection of its own (one more than the pool),
   * made again whenever it is lost; embedded, through PGlite's. Returns the function that stops it.
   */
  listen(channel: string, listener: ChannelListener): () => Promise<void>;
  close(): Promise<void>;
}

/** What follows a notification channel is told. */
export interface ChannelListener {
  /** A notification's payload. */
  notify(payload: string): void;
  /** Listening (again): every notification sent from now on reaches `notify`. */
  listening(): void;
  /** The connection is lost: notifications are missed until `listening` is called again. */
  lost(): void;
}

/** Told of each statement sent; `params` reads its parameters (only a listener that needs them pays for it). */
type StatementListener = (sql: string, params: () => unknown[]) => void;

/** A Prisma client that reports each statement it sends to the database's listeners. */
function observedClient(adapter: SqlDriverAdapterFactory, listeners: Set<StatementListener>) {
  const prisma = new PrismaClient({
    adapter,
    log: [{ emit: 'event', level: 'query' }],
    // Bulk writes (10,000 numbers, 100,000 runs) run in one transaction each:
    // Prisma's 5 s default is too short for them on a busy machine.
    transactionOptions: { timeout: 60_000, maxWait: 10_000 },
  });
  prisma.$on('query', (event) => {
    for (const listener of listeners) listener(event.query, () => JSON.parse(event.params) as unknown[]);
  });
  return prisma as unknown as PrismaClient;
}

/** The same runner, reporting each statement it sends (in transactions too) to the listeners, and tracing it (Prisma traces its own). */
function observedRunner(runner: SqlRunner, listeners: Set<StatementListener>): SqlRunner {
  const observe = (queryable: SqlQueryable): SqlQueryable => ({
    query: (text, params, options) => {
      for (const listener of listeners) listener(text, () => params ?? []);
      return tracing().statement(text, () => queryable.query(text, params, options));
    },
    exec: (text) => {
      for (const listener of listeners) listener(text, () => []);
      return tracing().statement(text, () => queryable.exec(text));
    },
  });
  return { ...observe(runner), transaction: (work) => runner.transaction((tx) => work(observe(tx))) };
}

function statementListeners() {
  const listeners = new Set<StatementListener>();
  return {
    listeners,
    onStatement(listener: StatementListener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

async function openEmbedded(dataDir: string): Promise<Database> {
  const lock = await lockDataDir(dataDir);
  try {
    // Loaded only for an embedded database: on PostgreSQL these modules would
    // only take the server's memory (BENCHMARKS.md (f)).
    const [{ PGlite }, { PrismaPGlite }] = await Promise.all([
      import('@electric-sql/pglite'),
      import('pglite-prisma-adapter'),
    ]);
    const pglite = await PGlite.create({ dataDir: path.join(dataDir, 'pgdata') });
    const { listeners, onStatement } = statementListeners();
    const prisma = observedClient(new PrismaPGlite(pglite), listeners);
    const sql: SqlRunner = {
      query: (text, params) => pglite.query(text, params),
      exec: async (text) => {
        await pglite.exec(text);
      },
      transaction: (work) =>
        pglite.transaction((tx) =>
          work({
            query: (text, params) => tx.query(text, params),
            exec: async (text) => {
              await tx.exec(text);
            },
          }),
        ),
    };
    return {
      prisma,
      sql: observedRunner(sql, listeners),
      storage: { kind: 'embedded', dataDir },
      onStatement,
      listen(channel, listener) {
        // One process, one connection: nothing to lose but the database itself. PGlite splices the name
        // into its own LISTEN; quoted, it is taken as written.
        const stop = pglite
          .listen(quoteIdentifier(channel), (payload) => listener.notify(payload))
          .then(
            (unlisten) => {
              listener.listening();
              return unlisten;
            },
            () => {
              listener.lost();
              return null;
            },
          );
        return async () => {
          const unlisten = await stop;
          listener.lost();
          await unlisten?.().catch(() => {});
        };
      },
      async close() {
        await prisma.$disconnect();
        await pglite.close();
        await lock.release();
      },
    };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/**
 * Named statements of a process, at most this many: each connection keeps
 * every one it was sent until it closes (a PgBouncer in transaction mode
 * needs `max_prepared_statements` at least this: docs/call-records.md). Of
 * them, `shaped` ones take at most SHAPED_NAMED_STATEMENTS, first come.
 */
const MAX_NAMED_STATEMENTS = 64;
const SHAPED_NAMED_STATEMENTS = 48;
const statementNames = new Map<string, string>();
let shapedNames = 0;

/** The name `text` is prepared under; null once its kind's names are all taken (sent unnamed). */
function statementName(text: string, kind: 'fixed' | 'shaped'): string | null {
  let name = statementNames.get(text);
  if (name !== undefined) return name;
  if (statementNames.size >= MAX_NAMED_STATEMENTS || (kind === 'shaped' && shapedNames >= SHAPED_NAMED_STATEMENTS))
    return null;
  if (kind === 'shaped') shapedNames++;
  name = `gateway_${statementNames.size + 1}`;
  statementNames.set(text, name);
  return name;
}

function queryableClient(client: pg.ClientBase | pg.Pool): SqlQueryable {
  return {
    query: async (text, params, options) => {
      const name = options?.prepared ? statementName(text, options.prepared) : null;
      const result = await client.query(name ? { name, text, values: params } : { text, values: params });
      return { rows: result.rows };
    },
    exec: async (text) => {
      await client.query(text);
    },
  };
}

// Waits before connecting the listening client again: at once after a loss, then doubling up to a few seconds.
const RELISTEN_FIRST_MS = 50;
const RELISTEN_MAX_MS = 5000;

/**
 * LISTENs on a client of its own, outside the pool (a pooled connection goes back to the pool and is
 * LISTENing for nobody). Lost (the server restarted, the connection was terminated or broke), it is
 * told to `listener` at once and made again, until stopped.
 */
function listenOnPostgres(url: string, channel: string, listener: ChannelListener): () => Promise<void> {
  let stopped = false;
  let client: pg.Client | null = null;
  let retryMs = 0;
  let timer: NodeJS.Timeout | undefined;
  const connect = async () => {
    const current = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    client = current;
    let lost = false;
    const lose = () => {
      if (lost) return;
      lost = true;
      listener.lost();
      current.end().catch(() => {});
      if (stopped) return;
      timer = setTimeout(connect, retryMs);
      timer.unref();
      retryMs = Math.min(Math.max(retryMs * 2, RELISTEN_FIRST_MS), RELISTEN_MAX_MS);
    };
    current.on('error', lose);
    current.on('end', lose);
    current.on('notification', (message) => {
      if (!lost && message.channel === channel && message.payload !== undefined) listener.notify(message.payload);
    });
    try {
      await current.connect();
      await listen(current, channel);
    } catch {
      lose();
      return;
    }
    if (lost || stopped) return;
    retryMs = 0;
    listener.listening();
  };
  void connect();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await client?.end().catch(() => {});
    listener.lost();
  };
}

async function openPostgres(url: string, poolSize: number): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle client that loses its server must not crash the process.
  pool.on('error', () => {});
  // Nor one that loses it as it changes hands: pg-pool gives a released client to the next waiter
  // at once, and the rest of its socket's data (a FATAL "terminating connection") may be read before
  // that waiter (a Prisma transaction) listens. Its queries fail with the error all the same.
  pool.on('connect', (client) => client.on('error', () => {}));
  const { listeners, onStatement } = statementListeners();
  const prisma = observedClient(new PrismaPg(pool), listeners);
  const sql: SqlRunner = {
    ...queryableClient(pool),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(queryableClient(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
  };
  return {
    prisma,
    sql: observedRunner(sql, listeners),
    storage: { kind: 'postgres', url, poolSize },
    onStatement,
    listen: (channel, listener) => listenOnPostgres(url, channel, listener),
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

export function openDatabase(storage: Storage): Promise<Database> {
  return storage.kind === 'embedded' ? openEmbedded(storage.dataDir) : openPostgres(storage.url, storage.poolSize);
}
