// Follows a channel of PostgreSQL's NOTIFY on this connection (src/db/database.ts).
// It reads no table: no index.
import type pg from 'pg';
import { quoteIdentifier } from '../parts/identifiers.ts';

export async function listen(client: pg.Client, channel: string): Promise<void> {
  await client.query(`LISTEN ${quoteIdentifier(channel)}`);
}
