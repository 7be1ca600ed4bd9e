import type { SqlClient } from '../tx.ts';

/**
 * The database's text search configuration named `name` (an organization's
 * `transcript_language`), if there is one: in pg_catalog, where PostgreSQL's
 * own are, so no other schema's object can be named.
 * Index: pg_ts_config_cfgname_index.
 */
export const searchConfigurationNamed = (tx: SqlClient, name: string) =>
  tx.$queryRaw<{ cfgname: string }[]>`
    SELECT c.cfgname FROM pg_catalog.pg_ts_config AS c
    WHERE c.cfgname = ${name} AND c.cfgnamespace = 'pg_catalog'::regnamespace`;
