// Every list is a Relay connection with `totalCount`. Cursors are offsets, so
// a REST page (page, limit) maps onto a connection (first, after) exactly;
// the total is counted only when a client asks for it, or when a page is
// counted back from the end of the list (`last` with no `before`).
import {
  type DefaultConnectionArguments,
  offsetForArgs,
  offsetToCursor,
  type resolveOffsetConnection,
} from '@pothos/plugin-relay';
import { noCondition } from '../db/parts/child-orders.ts';
import type { SqlPart } from '../db/parts/sql-part.ts';
import { badInput } from '../domain/errors.ts';
import type { ChildList, Loaders } from './loaders.ts';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
/**
 * The items a list argument or input field may hold when it has no bound of its
 * own (`nodes(ids:)`, a configuration's keywords): as many as the largest page,
 * whose ids a client refetches at once (src/graphql/operation-cost.ts enforces it).
 */
export const MAX_LIST_ITEMS = 100;

/** The descriptions of every connection's arguments (builder.ts hands them to the Relay plugin). */
export const connectionArgs = {
  first: {
    description: `The first N items (after \`after\` when given): 0 to ${MAX_PAGE_SIZE}; ${DEFAULT_PAGE_SIZE} when neither \`first\` nor \`last\` is given.`,
  },
  after: { description: 'A cursor (`endCursor` or an edge’s): the page starts after that item.' },
  last: {
    description: `The last N items (before \`before\` when given): 0 to ${MAX_PAGE_SIZE}. Alone, the last N items of the whole list.`,
  },
  before: { description: 'A cursor (`startCursor` or an edge’s): the page ends before that item.' },
};

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
      throw badInput([
        { path: name, rule: `0 to ${MAX_PAGE_SIZE}`, message: `must be between 0 and ${MAX_PAGE_SIZE}` },
      ]);
    }
  }
}

/** A page whose end is not bounded by `before` or `first` is counted back from the list's end. */
const countsFromTheEnd = (args: DefaultConnectionArguments) =>
  args.last != null && args.before == null && args.first == null;

/**
 * The window of the list a page shows, known without counting the list (what
 * offsetConnection pages by); null when it is not known so (a page counted
 * from the end) or the arguments are refused (offsetConnection says why).
 */
export function knownWindow(args: DefaultConnectionArguments): ReturnType<typeof offsetForArgs> | null {
  if (countsFromTheEnd(args)) return null;
  try {
    checkSize(args);
    return offsetForArgs({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE });
  } catch {
    return null;
  }
}

export async function offsetConnection<T>(
  args: DefaultConnectionArguments,
  load: (page: Page) => Promise<readonly T[]>,
  count: () => Promise<number>,
) {
  checkSize(args);
  // Counted at most once, whether for the page's bounds or for the `totalCount` field.
  let total: Promise<number> | undefined;
  const totalCount = () => (total ??= count());
  // The end of the list is the offset `totalCount`: a page counted back from it ends before it.
  const bounded = countsFromTheEnd(args) ? { ...args, before: offsetToCursor(await totalCount()) } : args;
  const { offset, limit, expectedSize, hasPreviousPage, hasNextPage } = offsetForArgs({
    args: bounded,
    defaultSize: DEFAULT_PAGE_SIZE,
    maxSize: MAX_PAGE_SIZE,
  });
  const nodes = await load({ offset, limit });
  const edges = nodes
    .slice(0, expectedSize)
    .map((node, index) => (node == null ? null : new OffsetEdge<T>(node, offset + index)));
  const pageInfo = new OffsetPageInfo(offset, edges.length, hasPreviousPage, hasNextPage(nodes.length));
  // Typed as Pothos's own offset connection, which every connection field accepts.
  const connection = { edges, pageInfo } as unknown as OffsetConnection<T>;
  return Object.assign(connection, { totalCount });
}

type OffsetConnection<T> = Awaited<ReturnType<typeof resolveOffsetConnection<T, Promise<readonly T[]>>>>;

// The cursors below are what Pothos's resolveOffsetConnection makes, made only
// when a query reads them: a page read as `nodes` (the dashboard's 1,000 runs)
// makes none.

/** An item of an offset page; its cursor is its offset. */
class OffsetEdge<T> {
  constructor(
    readonly node: T,
    private readonly offset: number,
  ) {}

  get cursor() {
    return offsetToCursor(this.offset);
  }
}

/** Where an offset page of `size` items starting at `offset` is in its list. */
class OffsetPageInfo {
  constructor(
    private readonly offset: number,
    private readonly size: number,
    readonly hasPreviousPage: boolean,
    readonly hasNextPage: boolean,
  ) {}

  get startCursor() {
    return offsetToCursor(this.offset);
  }

  get endCursor() {
    return offsetToCursor(this.offset + this.size - 1);
  }
}

/** A model of the tenant client (`context.db.agent`), as a root list reads it. */
interface ListedModel<Row, Where, OrderBy> {
  findMany(query: { where?: Where; orderBy: OrderBy; skip: number; take: number }): Promise<Row[]>;
  count(query: { where?: Where }): Promise<number>;
}

/**
 * A page of the organization's rows of `model` (those matching `where` when
 * given), and their count; `loaded` sees each row of the page as it is read.
 */
export const modelConnection = <Row, Where, OrderBy>(
  args: DefaultConnectionArguments,
  model: ListedModel<Row, Where, OrderBy>,
  { where, orderBy, loaded }: { where?: Where; orderBy: OrderBy; loaded?: (row: Row) => void },
) =>
  offsetConnection(
    args,
    async ({ offset, limit }) => {
      const rows = await model.findMany({ where, orderBy, skip: offset, take: limit });
      if (loaded) rows.forEach(loaded);
      return rows;
    },
    () => model.count({ where }),
  );

/** A page of every row a parent lists (`childLists`, loaders.ts) in `orderBy`, and their count. */
export const childConnection = (
  args: DefaultConnectionArguments,
  loaders: Loaders,
  { list, parentId, orderBy }: { list: ChildList; parentId: string; orderBy: SqlPart },
) =>
  offsetConnection(
    args,
    (page) => loaders.pages.load({ list, parentId, where: noCondition, orderBy, ...page }) as never,
    () => loaders.counts.load({ list, parentId, where: noCondition }),
  );

/** The `after` cursor that starts a connection at `offset` (REST pages use it). */
export const cursorBefore = (offset: number) => (offset > 0 ? offsetToCursor(offset - 1) : null);
