// PostGraphile 5 (Grafast) over the same tables, served by plain node:http:
// the second GraphQL server the gateway is compared with, beside v4
// (bench/postgraphile.ts). A package of its own (graphql 16, Grafast), which
// `npm run bench` installs with `npm ci` in this folder (bench/support.ts,
// installPostGraphile5). JavaScript, so that the project's type check never
// needs these packages installed. Defaults a production deployment would use:
// no GraphiQL, no watching, no mutations, `data` written as JSON text
// (grafserv's outputDataAsString), no authentication.
//
// Usage: node bench/postgraphile5/server.js <port>, with DATABASE_URL.

// 5.1.5 declares Node.js >= 22; on Node.js 20 the one API it calls that is
// missing is Promise.withResolvers (Node.js 22's own, ES2024).
if (!Promise.withResolvers) {
  Promise.withResolvers = function withResolvers() {
    let resolve;
    let reject;
    const promise = new this((yes, no) => {
      resolve = yes;
      reject = no;
    });
    return { promise, resolve, reject };
  };
}

const http = await import('node:http');
const pg = (await import('pg')).default;
const { PgSimplifyInflectionPreset } = await import('@graphile/simplify-inflection');
const { postgraphile } = await import('postgraphile');
const { makePgService } = await import('postgraphile/adaptors/pg');
const { grafserv } = await import('postgraphile/grafserv/node');
const { PostGraphileAmberPreset } = await import('postgraphile/presets/amber');
const { jsonPgSmartTags } = await import('postgraphile/utils');

const port = Number(process.argv[2]);
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
});
pool.on('error', () => {});

// Smart tags in the preset, not COMMENTs: Prisma owns the DDL. Every tenant
// table's keys hold organizationId, so the relations' default names would
// spell out the columns (`workflowOrganization`, `runOrganization`); the tags
// name them as the gateway does: `Workflow.batches`, `Batch.runs`,
// `Run.batch`, `Run.prospect`, `Run.runAttempts` (`attempts` is a column). A run refers to its batch by
// (batch, workflow, organization, version), which v5 hides (no index starts
// with those four columns in that order) unless tagged isIndexed. Run and
// RunAttempt are partitioned: the constraints named here are the parents'
// (each partition's copies are not in the schema).
const tags = jsonPgSmartTags({
  version: 1,
  config: {
    class: {
      Run: {
        constraint: {
          Run_batch_fkey: { tags: { isIndexed: true, fieldName: 'batch', foreignFieldName: 'runs' } },
          Run_prospect_fkey: { tags: { fieldName: 'prospect', foreignFieldName: 'runs' } },
        },
      },
      RunAttempt: {
        constraint: { RunAttempt_run_fkey: { tags: { fieldName: 'run', foreignFieldName: 'runAttempts' } } },
      },
      Batch: {
        constraint: {
          Batch_workflowId_organizationId_fkey: { tags: { fieldName: 'workflow', foreignFieldName: 'batches' } },
        },
      },
    },
  },
});

const pgl = postgraphile({
  extends: [PostGraphileAmberPreset, PgSimplifyInflectionPreset],
  plugins: [tags],
  disablePlugins: ['PgMutationCreatePlugin', 'PgMutationUpdateDeletePlugin'],
  pgServices: [makePgService({ pool, schemas: ['public'] })],
  grafserv: { graphqlPath: '/graphql', graphiql: false, watch: false, websockets: false, outputDataAsString: true },
  grafast: { explain: false },
});
const serv = pgl.createServ(grafserv);
// Introspection first: the port opens when the schema is built.
await pgl.getSchema();
const graphqlHandler = serv.createHandler();

const server = http.createServer((request, response) => {
  if (request.url === '/health') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"status":"ok"}');
    return;
  }
  graphqlHandler(request, response);
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');

process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pgl
    .release()
    .catch(() => {})
    .then(() => pool.end())
    .then(() => process.exit(0));
});
