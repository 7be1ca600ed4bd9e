// The OpenTelemetry SDK, loaded by src/observability/tracing.ts only when the
// OTEL_* variables ask for traces. Spans come from the ecosystem's
// instrumentations where one exists: @fastify/otel (the HTTP request and its
// route's handler), @envelop/opentelemetry (the GraphQL operation),
// @prisma/instrumentation (each statement Prisma sends, without its values).
// Made here: the statements of the raw SQL runner (src/db/database.ts): no
// instrumentation covers PGlite, and @opentelemetry/instrumentation-pg patches
// `pg` as it is loaded, which needs a loader hook registered before
// src/db/database.ts imports it, long before the configuration is read. And
// the engine's and webhook worker's work, which no instrumentation knows.
import type { Attributes, Context, Link } from '@opentelemetry/api';
import type { Sampler } from '@opentelemetry/sdk-trace-node';
import type { Plugin } from 'graphql-yoga';
import { operationLabel } from './operation-label.ts';
import type { SpanAttributes, Tracing } from './tracing.ts';

const TRACER_NAME = 'agent-gateway';

/** The raw SQL runner's statement span, named as Prisma names its own. */
const STATEMENT_SPAN = 'db_query';

/**
 * Statements outside any trace (the engine's and webhook worker's polling,
 * lease renewals) would each be a trace of one span, several a second: they
 * are not recorded. Everything else starts a trace.
 */
const statementsInTracesOnly = (
  { trace }: typeof import('@opentelemetry/api'),
  { SamplingDecision }: typeof import('@opentelemetry/sdk-trace-node'),
): Sampler => ({
  shouldSample(parent, _traceId, name) {
    const statement = name.startsWith('prisma:') || name === STATEMENT_SPAN;
    if (statement && !trace.getSpanContext(parent)) return { decision: SamplingDecision.NOT_RECORD };
    return { decision: SamplingDecision.RECORD_AND_SAMPLED };
  },
  toString: () => 'StatementsInTracesOnly',
});

export async function openTelemetryTracing(): Promise<Tracing> {
  // Imported here, not at the top: the esbuild bundle (scripts/build.js) would turn top-level
  // imports of this file into the bundle's own, loaded whether traces are on or not.
  const [
    api,
    { OTLPTraceExporter },
    resources,
    sdk,
    { PrismaInstrumentation },
    { FastifyOtelInstrumentation },
    envelopOtel,
  ] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-node'),
    import('@prisma/instrumentation'),
    import('@fastify/otel'),
    import('@envelop/opentelemetry'),
  ]);
  const { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } = api;
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } = resources;
  const { BatchSpanProcessor, NodeTracerProvider, ParentBasedSampler } = sdk;
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'agent-gateway' }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    // A sampled caller's traceparent is honoured; a root trace is always kept (OTEL_TRACES_SAMPLER is not read).
    sampler: new ParentBasedSampler({ root: statementsInTracesOnly(api, sdk) }),
    // The exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS and _TIMEOUT; it sends OTLP/HTTP JSON.
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // Global: the AsyncLocalStorage context manager and the W3C trace-context propagator.
  provider.register();
  const prisma = new PrismaInstrumentation({ ignoreSpanTypes: ['prisma:client:serialize'] });
  prisma.setTracerProvider(provider);
  const fastify = new FastifyOtelInstrumentation({
    // The request and its route's handler; not a span per hook (rate limits, helmet, CORS, the log line).
    instrumentHooks: false,
    ignorePaths: (route) => ['/health', '/ready', '/metrics'].includes(route.url ?? ''),
    // Named as OpenTelemetry's HTTP conventions name a server span: `GET /org/:org_id/agents`.
    requestHook: (span, request) => span.updateName(`${request.method} ${request.routeOptions.url ?? ''}`.trim()),
  });
  fastify.setTracerProvider(provider);
  const tracer = provider.getTracer(TRACER_NAME);

  // The cost is found as the operation starts (its variables count), by a plugin before this one.
  const operationCosts = new WeakMap<object, number>();
  // The operation's span, with its complexity (the cost GRAPHQL_MAX_COST bounds) as an attribute, and
  // named as logs and metrics name the operation: an unnamed one (REST's) by its first root field.
  const operationSpans: Plugin = {
    onPluginInit({ addPlugin }) {
      // Name and type of the operation; not its document (large, and it may hold values inline) nor its variables.
      const options = { document: false, variables: false, result: false, resolvers: false };
      addPlugin(envelopOtel.useOpenTelemetry(options, provider, SpanKind.INTERNAL) as Plugin);
      addPlugin({
        onExecute({ args }) {
          const span = trace.getSpan(envelopOtel.otelContextMap.get(args.contextValue as object) ?? ROOT_CONTEXT);
          if (!span) return;
          const cost = operationCosts.get(args.contextValue as object);
          if (cost !== undefined) span.setAttribute('graphql.operation.complexity', cost);
          const label = operationLabel(args.document, args.operationName);
          if (!label.named && label.name !== 'anonymous') span.updateName(`${label.type}.${label.name}`);
        },
      });
    },
  };

  function inSpanOf<T>(
    name: string,
    attributes: SpanAttributes,
    parent: Context,
    links: Link[],
    work: () => Promise<T>,
    kind = SpanKind.INTERNAL,
  ) {
    return tracer.startActiveSpan(name, { kind, attributes: attributes as Attributes, links }, parent, async (span) => {
      try {
        return await work();
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  return {
    fastifyPlugin: fastify.plugin(),
    graphqlPlugin: operationSpans,
    operationCost: (operationContext, cost) => operationCosts.set(operationContext, cost),
    activeIds() {
      const span = trace.getActiveSpan()?.spanContext();
      return span ? { traceId: span.traceId, spanId: span.spanId } : undefined;
    },
    inject(headers) {
      propagation.inject(context.active(), headers);
      return headers;
    },
    inSpan: (name, attributes, work) => inSpanOf(name, attributes, context.active(), [], work),
    inTraceLinkedTo(name, traceparent, attributes, work) {
      const linked = traceparent ? trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent })) : undefined;
      return inSpanOf(
        name,
        attributes,
        ROOT_CONTEXT,
        linked ? [{ context: linked, attributes: { 'link.reason': 'batch created' } }] : [],
        work,
      );
    },
    recordSpan(name, attributes, startedAt, endedAt) {
      tracer.startSpan(name, { attributes: attributes as Attributes, startTime: startedAt }).end(endedAt);
    },
    traceparent() {
      const headers: Record<string, string> = {};
      propagation.inject(context.active(), headers);
      return headers.traceparent ?? null;
    },
    statement: (text, run) =>
      // Its text without values: they are parameters, never spliced in.
      inSpanOf(
        STATEMENT_SPAN,
        { 'db.system.name': 'postgresql', 'db.query.text': text },
        context.active(),
        [],
        run,
        SpanKind.CLIENT,
      ),
    shutdown: () => provider.shutdown(),
  };
}
