// Every list is a Relay connection with `totalCount`. Cursors are offsets, so
// a REST page (page, limit) maps onto a connection (first, after) exactly;
// the total is counted only when a client asks for it.
import { type DefaultConnectionArguments, offsetToCursor, resolveOffsetConnection } from '@pothos/plugin-relay';
import { badInput } from '../domain/errors.ts';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface Page {
  offset: number;
  limit: number;
}

export interface Counted {
  totalCount(): Promise<number>;
}

function checkSize(args: DefaultConnectionArguments) {
  for (const name of ['first', 'last'] as const) {
    const size = args[name];
    if (size !== null && size !== undefined && (size < 0 || size > MAX_PAGE_SIZE)) {
      throw badInput([{ path: name, rule: `0 to ${MAX_PAGE_SIZE}`, message: `must be between 0 and ${MAX_PAGE_SIZE}` }]);
    }
  }
}

export async function offsetConnection<T>(
  args: DefaultConnectionArguments,
  load: (page: Page) => Promise<readonly T[]>,
  count: () => Promise<number>,
) {
  checkSize(args);
  const connection = await resolveOffsetConnection(
    { args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE },
    ({ offset, limit }) => load({ offset, limit }),
  );
  return Object.assign(connection, { totalCount: count });
}

/** The `after` cursor that starts a connection at `offset` (REST pages use it). */
export const cursorBefore = (offset: number) => (offset > 0 ? offsetToCursor(offset - 1) : null);
