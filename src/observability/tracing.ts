// Traces (OpenTelemetry), off unless the standard OTEL_* variables ask for
// them. This module imports nothing: with tracing off, the code that traces
// calls the no-op below, and the SDK (src/observability/tracing-sdk.ts) is
// never loaded, so it takes none of the server's memory (BENCHMARKS.md (f)).
//
// OpenTelemetry's registration is process-wide, so the tracing in effect is too.
import type { FastifyPluginCallback } from 'fastify';
import type { Plugin } from 'graphql-yoga';

export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface Tracing {
  /** Made the HTTP request's span (and its route's): registered first on the Fastify app. */
  fastifyPlugin: FastifyPluginCallback | null;
  /** Makes the GraphQL operation's span: the last of yoga's plugins, so its executor runs in the span. */
  graphqlPlugin: Plugin | null;
  /** Notes an operation's cost (found as it starts, src/graphql/operation-cost.ts) for its span, by its context. */
  operationCost(context: object, cost: number): void;
  /** The active span's ids, for the request's log line. */
  activeIds(): { traceId: string; spanId: string } | undefined;
  /** Adds the active trace's W3C headers (`traceparent`) to an outgoing request's. */
  inject(headers: Record<string, string>): Record<string, string>;
  /** Runs `work` in a span under the active one. */
  inSpan<T>(name: string, attributes: SpanAttributes, work: () => Promise<T>): Promise<T>;
  /** Runs `work` as the root of a trace of its own, linked to the trace `traceparent` (W3C) names, if any. */
  inTraceLinkedTo<T>(
    name: string,
    traceparent: string | null,
    attributes: SpanAttributes,
    work: () => Promise<T>,
  ): Promise<T>;
  /** Records a span that already ended (a claim shared by several runs), under the active one. */
  recordSpan(name: string, attributes: SpanAttributes, startedAt: number, endedAt: number): void;
  /** The active span as a W3C traceparent, to store beside what it creates (a batch) and link later traces to. */
  traceparent(): string | null;
  /** Runs a statement of the raw SQL runner in a span under the active one. */
  statement<T>(text: string, run: () => Promise<T>): Promise<T>;
  /** Sends the spans not yet exported. */
  shutdown(): Promise<void>;
}

const tracingOff: Tracing = {
  fastifyPlugin: null,
  graphqlPlugin: null,
  operationCost: () => {},
  activeIds: () => undefined,
  inject: (headers) => headers,
  inSpan: (_name, _attributes, work) => work(),
  inTraceLinkedTo: (_name, _traceparent, _attributes, work) => work(),
  recordSpan: () => {},
  traceparent: () => null,
  statement: (_text, run) => run(),
  shutdown: async () => {},
};

let current: Tracing = tracingOff;

/** The tracing in effect (the no-op until startTracing found it configured). */
export const tracing = (): Tracing => current;

/**
 * Whether the environment asks for traces: an OTLP endpoint, or
 * OTEL_TRACES_EXPORTER=otlp (to the default http://localhost:4318), and not
 * OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none.
 */
export function tracingConfigured(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim().toLowerCase());
  if (exporters.includes('none')) return false;
  return (
    exporters.includes('otlp') || Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  );
}

/** Starts tracing when the environment asks for it; once per process. */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<Tracing> {
  if (current === tracingOff && tracingConfigured(env))
    current = await (await import('./tracing-sdk.ts')).openTelemetryTracing();
  return current;
}
