// The shared response cache: a query over HTTP (POST or GET /graphql) whose
// answer is kept (src/events/response-cache-store.ts) is answered from it, by
// organization and API key scopes, without executing. What it does, in order:
// - a key for the request: its session (responseCacheSession), document,
//   operation name and variables, behind its organization;
// - a hit answers at once, with `extensions.responseCache.hit: true`; a miss
//   executes and keeps an answer without errors for RESPONSE_CACHE_TTL_MS,
//   unless something it holds changes first;
// - `Cache-Control: no-cache` (or `no-store`) skips the cache both ways.
// Mutations are never kept; each drops its organization's answers
// (use-write-invalidations.ts) and those holding what it returned. Operations
// run over graphql-ws, the REST layer's, subscriptions and live queries are
// not cached (they have no HTTP request here, or are streams).
import { hashSHA256, useResponseCache } from '@graphql-yoga/plugin-response-cache';
import type { Plugin } from 'graphql-yoga';
import type { Viewer } from '../auth/authenticate.ts';
import { cacheKeyOf, type ResponseCacheStore } from '../events/response-cache-store.ts';
import type { Metrics } from '../observability/metrics.ts';

/** What a request's cache session is made of: the caller's organization and its key's scopes. */
export interface CacheSessionContext {
  viewer?: Pick<Viewer, 'organizationId' | 'scopes'> | null;
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

const BYPASS = /\b(no-cache|no-store)\b/i;

/** Whether the request may use the cache: over HTTP, authenticated, not told to bypass it. */
const cacheable = (request: Request | undefined, context: CacheSessionContext) =>
  request !== undefined &&
  responseCacheSession(context) !== null &&
  !BYPASS.test(request.headers.get('cache-control') ?? '');

/** Whether the shared cache keeps or answers this request. */
export const cachedBy = (store: ResponseCacheStore, request: Request, context: CacheSessionContext) =>
  store.settings.ttlMs > 0 && cacheable(request, context);

interface CacheReport {
  extensions?: { responseCache?: { hit?: boolean }; [member: string]: unknown };
}

/**
 * Counts hits and misses, as the answers say (`extensions.responseCache`). A
 * mutation's answer is told nothing: the plugin's list of what it invalidated
 * is dropped from it.
 */
const useResponseCacheReport = (metrics: Metrics): Plugin => ({
  onResultProcess({ result, setResult }) {
    if (Array.isArray(result) || Symbol.asyncIterator in (result as object)) return;
    const { extensions } = result as CacheReport;
    const report = extensions?.responseCache;
    if (!report) return;
    if (report.hit !== undefined) {
      metrics.responseCache.inc({ result: report.hit ? 'hit' : 'miss' });
      return;
    }
    const { responseCache: _dropped, ...rest } = extensions;
    setResult({ ...(result as object), extensions: Object.keys(rest).length > 0 ? rest : undefined } as typeof result);
  },
});

export function useSharedResponseCache(store: ResponseCacheStore, metrics: Metrics): Plugin[] {
  if (store.settings.ttlMs === 0) return [];
  return [
    useResponseCache<CacheSessionContext>({
      session: (_request, context) => responseCacheSession(context),
      enabled: (request, context) => cacheable(request, context),
      cache: store.cache,
      ttl: store.settings.ttlMs,
      includeExtensionMetadata: true,
      buildResponseCacheKey: async ({ documentString, operationName, variableValues, sessionId, context }) =>
        cacheKeyOf(
          (context as CacheSessionContext).viewer?.organizationId ?? '',
          await hashSHA256(
            [sessionId ?? '', operationName ?? '', documentString, JSON.stringify(variableValues ?? {})].join('\n'),
          ),
        ),
    }),
    useResponseCacheReport(metrics),
  ];
}
