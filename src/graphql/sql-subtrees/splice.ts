// The texts PostgreSQL wrote, put in the answer without being parsed: each
// goes in as a marker, which JSON.stringify writes as a token (a string no
// answer holds: PostgreSQL's text never holds a NUL), and the answer's
// stringifier (yoga calls the result's own `stringify`) puts the text in its
// place. The same idea as grafserv's `outputDataAsString` (PostGraphile 5).
import { randomUUID } from 'node:crypto';
import type { ExecutionResult } from 'graphql';
import type { SqlQueryable } from '../../db/database.ts';
import { connectionSubtrees } from '../../db/sql/connection-subtrees.ts';
import type { Plan } from './plan.ts';

const TOKEN = `\u0000${randomUUID()}:`;
const written = JSON.stringify(TOKEN)
  .slice(1, -1)
  .replace(/[\\^$.*+?()[\]{}|-]/g, '\\$&');
const tokens = new RegExp(`"${written}(\\d+)"`, 'g');

/** A text PostgreSQL wrote, by its index in the answer's texts. */
class WrittenText {
  constructor(private readonly index: number) {}

  toJSON() {
    return `${TOKEN}${this.index}`;
  }
}

type Holder = Record<string, unknown>;

/** The objects holding `key` along `path` from `value` (lists walked into), with what they hold there. */
function holders(value: unknown, path: readonly string[], found: Holder[] = []): Holder[] {
  if (value === null || typeof value !== 'object') return found;
  if (Array.isArray(value)) {
    for (const item of value) holders(item, path, found);
    return found;
  }
  const [key, ...rest] = path;
  const holder = value as Holder;
  if (rest.length === 0) {
    if (typeof holder[key!] === 'string') found.push(holder);
  } else holders(holder[key!], rest, found);
  return found;
}

/**
 * Writes each connection of the plan for every parent the answer holds (one
 * statement per connection), and makes the result's text carry them.
 */
export async function spliceConnections(
  result: ExecutionResult,
  plan: Plan,
  sql: SqlQueryable,
  organizationId: string,
): Promise<ExecutionResult> {
  if (!result.data) return result;
  const texts: string[] = [];
  await Promise.all(
    plan.sites.map(async (site) => {
      const found = holders(result.data, site.path);
      if (found.length === 0) return;
      const key = site.path.at(-1)!;
      const parentIds = [...new Set(found.map((holder) => holder[key] as string))];
      const rows = await connectionSubtrees(sql, site.parentTable, organizationId, parentIds, site.text);
      const byParent = new Map(rows.map((row) => [row.parent, row.text]));
      for (const holder of found) {
        const text = byParent.get(holder[key] as string);
        // The parent was read in this request: only a concurrent deletion loses it.
        if (text === undefined) throw new Error(`${site.parentTable} ${holder[key]} is gone`);
        holder[key] = new WrittenText(texts.push(text) - 1);
      }
    }),
  );
  if (texts.length === 0) return result;
  // Enumerable, so that a plugin's copy of the result ({ ...result }) keeps it.
  return Object.assign(result, {
    stringify: (value: unknown) => JSON.stringify(value).replace(tokens, (_token, index) => texts[Number(index)]!),
  });
}
