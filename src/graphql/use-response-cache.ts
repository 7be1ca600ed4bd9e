// The shared response cache: a query over HTTP (POST or GET /graphql) whose
// answer is kept (src/events/response-cache-store.ts) is answered from it, by
// organization and API key scopes, as the very text the miss answered with.
// What it does, in order:
// - a key for the request, as its parameters are read (yoga's onParams): its
//   session (responseCacheSession), document text, operation name and
//   variables, behind its organization;
// - a hit answers at once with the kept text, written as is: no parse,
//   validation, execution, walk of the result or JSON serialisation (a hit
//   costs a hash and a look-up); the answer's `X-Response-Cache` header says
//   `hit`, the body is byte for byte the miss's;
// - a miss executes (`X-Response-Cache: miss`), and an answer without errors
//   is kept for RESPONSE_CACHE_TTL_MS with the entities it read (collected
//   once, as it is kept), unless one of them changes first;
// - `Cache-Control: no-cache` (or `no-store`) skips the cache both ways.
// Mutations are never kept; each drops the answers that read what it changed
// (use-write-invalidations.ts). Operations run over graphql-ws, the REST
// layer's, subscriptions and live queries are not cached (they have no HTTP
// request here, or are streams).
//
// Yoga's plugin (@graphql-yoga/plugin-response-cache) does the keying, the
// look-up before parsing, the document rewrite that reads each object's
// typename and id, and the walk of a miss's result; its store is given the
// answer's text instead of its objects (the store's `get` hands the plugin an
// answer whose serialiser returns that text, src/events/response-cache-store.ts).
// What the plugin would do per hit and is left out: its `extensions.responseCache`
// metadata (a hit would differ from the miss, and be re-serialised to say
// so), and its ETag / Last-Modified headers (revalidation with If-None-Match
// would cost a look-up of the whole answer for a 304).
import { createHash } from 'node:crypto';
import { useResponseCache } from '@graphql-yoga/plugin-response-cache';
import {
  type DocumentNode,
  type GraphQLSchema,
  getNamedType,
  getOperationAST,
  isAbstractType,
  isObjectType,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Viewer } from '../auth/authenticate.ts';
import {
  CACHED_BYTES,
  type CacheAnswer,
  cacheKeyOf,
  type ResponseCacheStore,
  SERVED_FROM_CACHE,
} from '../events/response-cache-store.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { RequestAudit } from '../observability/request-log.ts';

/** What a request's cache session is made of: the caller's organization and its key's scopes. */
export interface CacheSessionContext {
  viewer?: Pick<Viewer, 'organizationId' | 'scopes'> | null;
  audit?: RequestAudit;
}

/**
 * Who may share an answer: callers of one organization whose keys hold the
 * same scopes (src/key-scopes.ts: a field a key may not read is refused, and
 * the refusal is not shared with a key that may). Null: no caller, nothing cached.
 */
export function responseCacheSession(context: CacheSessionContext): string | null {
  if (!context.viewer) return null;
  return `${context.viewer.organizationId}|${[...context.viewer.scopes].sort().join(',')}`;
}

/** The hits' answers as bytes, with their key, by the server context of their request: the body, written as is. */
const hits = new WeakMap<object, { bytes: Buffer; key: string }>();

/**
 * A hit's body as the bytes kept, and its key, for the request whose server
 * context this is (src/http/app.ts writes them instead of the text yoga made
 * a Response of: the same, byte for byte, not encoded again; and answers the
 * same request again before yoga, response-cache-hits.ts); undefined for any other.
 */
export const cachedHit = (serverContext: object) => hits.get(serverContext);

/** The header that says whether an answer came from the cache (`hit`) or was executed (`miss`). */
const RESPONSE_CACHE_HEADER = 'x-response-cache';

const BYPASS = /\b(no-cache|no-store)\b/i;

/** Whether a request's Cache-Control header tells it to skip the cache. */
export const bypassesCache = (cacheControl: string | null | undefined) => BYPASS.test(cacheControl ?? '');

/** Whether the request may use the cache: over HTTP, authenticated, not told to bypass it. */
const cacheable = (request: Request | undefined, context: CacheSessionContext) =>
  request !== undefined &&
  responseCacheSession(context) !== null &&
  !bypassesCache(request.headers.get('cache-control'));

/** Whether the shared cache keeps or answers this request. */
export const cachedBy = (store: ResponseCacheStore, request: Request, context: CacheSessionContext) =>
  store.settings.ttlMs > 0 && cacheable(request, context);

/**
 * Says hit or miss (header and metrics) and, on a miss the plugin kept,
 * serialises the final answer once: that text is both the response's body
 * and what the store keeps (src/events/response-cache-store.ts).
 */
const typesByDocument = new WeakMap<DocumentNode, string[]>();

/**
 * The object types a document may read, lists (connections) included, found
 * once per document: an answer is dropped when a list of a type it read may
 * have gained an item, though the list it read was empty (the cache plugin
 * collects only objects with an id, src/graphql/use-write-invalidations.ts).
 */
function typesRead(schema: GraphQLSchema, document: DocumentNode): string[] {
  let types = typesByDocument.get(document);
  if (!types) {
    const found = new Set<string>();
    const typeInfo = new TypeInfo(schema);
    visit(
      document,
      visitWithTypeInfo(typeInfo, {
        Field() {
          const type = getNamedType(typeInfo.getType());
          if (isObjectType(type)) found.add(type.name);
          else if (isAbstractType(type)) for (const possible of schema.getPossibleTypes(type)) found.add(possible.name);
        },
      }),
    );
    types = [...found];
    typesByDocument.set(document, types);
  }
  return types;
}

function useResponseCacheText(store: ResponseCacheStore, metrics: Metrics, keyed: WeakMap<Request, string>): Plugin {
  /** The keyed requests that execute a query (not a mutation), with the types it may read: their answer is a miss. */
  const queries = new WeakMap<Request, string[]>();
  return {
    onExecute({ args }) {
      const { request } = args.contextValue as { request?: Request };
      if (request && keyed.has(request) && getOperationAST(args.document, args.operationName)?.operation === 'query')
        queries.set(request, typesRead(args.schema, args.document));
    },
    onResultProcess({ request, result, setResult, serverContext }) {
      const key = keyed.get(request);
      if (key === undefined) return;
      const bytes = (result as CacheAnswer)[CACHED_BYTES];
      if (bytes && serverContext) hits.set(serverContext, { bytes, key });
      const kept = answer(key, request, result as CacheAnswer, setResult);
      // Identical requests waiting for this one look the answer up once it is kept (or execute).
      if (kept) void Promise.resolve(kept).then(() => store.answered(key, request));
      else store.answered(key, request);
    },
  };

  /** Says hit or miss, and keeps a miss's text; when the answer is being kept, the promise of it. */
  function answer(
    key: string,
    request: Request,
    result: CacheAnswer,
    setResult: (result: CacheAnswer) => void,
  ): Promise<void> | void {
    if (Array.isArray(result) || Symbol.asyncIterator in (result as object)) return;
    const hit = result[SERVED_FROM_CACHE] === true;
    if (!hit && !queries.has(request)) return;
    metrics.responseCache.inc({ result: hit ? 'hit' : 'miss' });
    // The plugin's ETag and Last-Modified are not sent: a hit has none (it would cost a look-up of the whole
    // answer to revalidate), and the ETag would name the answer's key.
    const { ETag: _etag, 'Last-Modified': _lastModified, ...headers } = result.extensions?.http?.headers ?? {};
    headers[RESPONSE_CACHE_HEADER] = hit ? 'hit' : 'miss';
    const extensions = { ...result.extensions, http: { ...result.extensions?.http, headers } };
    if (hit) return setResult({ ...result, extensions });
    const kept = store.keep(key, result, queries.get(request) ?? []);
    setResult(kept === undefined ? { ...result, extensions } : { ...result, extensions, stringify: () => kept.text });
    return kept?.kept;
  }
}

export function useSharedResponseCache(store: ResponseCacheStore, metrics: Metrics): Plugin[] {
  if (store.settings.ttlMs === 0) return [];
  /** Each request's key, when it was keyed for a caller (no caller, no key: nothing is kept or answered). */
  const keyed = new WeakMap<Request, string>();
  return [
    useResponseCache<CacheSessionContext>({
      session: (_request, context) => responseCacheSession(context),
      enabled: (request) => keyed.has(request),
      cache: store.cache,
      ttl: store.settings.ttlMs,
      includeExtensionMetadata: false,
      // What a mutation makes stale is use-write-invalidations.ts's to drop: it knows the organization.
      invalidateViaMutation: false,
      shouldCacheResult: ({ result }) => !result.errors?.length,
      buildResponseCacheKey: async ({ documentString, operationName, variableValues, sessionId, request, context }) => {
        const { viewer, audit } = context as CacheSessionContext;
        // SHA-256 in hex, as the plugin's hashSHA256, without its Web Crypto round trip per request.
        const key = cacheKeyOf(
          viewer?.organizationId ?? '',
          createHash('sha256')
            .update(
              [sessionId ?? '', operationName ?? '', documentString, JSON.stringify(variableValues ?? {})].join('\n'),
            )
            .digest('hex'),
        );
        if (sessionId && viewer && cacheable(request, context as CacheSessionContext)) {
          keyed.set(request, key);
          // A hit runs no context factory: the request's log line gets its organization here.
          if (audit) audit.organizationId = viewer.organizationId;
          // An identical request under way here: its answer, once kept, is this one's.
          await store.lead(key, request);
        }
        return key;
      },
    }),
    useResponseCacheText(store, metrics, keyed),
  ];
}
