// PostGraphile (v4, from npm) over the same tables, served by plain
// node:http: the other GraphQL server the gateway is compared with. Defaults
// a production deployment would use: no GraphiQL, no query log, no schema
// watching, no mutations (only queries are compared), no authentication.
//
// Usage: node --import tsx bench/postgraphile.ts <port>, with DATABASE_URL.
import http from 'node:http';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import pg from 'pg';

// PostGraphile 4 needs graphql 15; the gateway uses 16. npm nests two copies
// of 15 (under postgraphile and under graphile-build-pg), and PostGraphile
// refuses types made by another copy. Every `graphql` its packages require is
// sent to the one under postgraphile. Nothing else is loaded in this process.
const postgraphileDir = path.dirname(createRequire(import.meta.url).resolve('postgraphile/package.json'));
const graphql15 = `${postgraphileDir}/node_modules/graphql/index.js`;
const graphile =
  /[\\/]node_modules[\\/](postgraphile|postgraphile-core|graphile-[\w-]+|graphql-parse-resolve-info|graphql-ws|pg-sql2)[\\/]/;
type Resolve = (request: string, parent: { filename?: string } | undefined, ...rest: unknown[]) => string;
const modules = Module as unknown as { _resolveFilename: Resolve };
const resolve = modules._resolveFilename;
modules._resolveFilename = function (request, parent, ...rest) {
  if ((request === 'graphql' || request.startsWith('graphql/')) && parent?.filename && graphile.test(parent.filename)) {
    return resolve.call(
      this,
      request === 'graphql' ? graphql15 : path.join(path.dirname(graphql15), request.slice('graphql/'.length)),
      parent,
      ...rest,
    );
  }
  return resolve.call(this, request, parent, ...rest);
};
const { postgraphile } = await import('postgraphile');

const port = Number(process.argv[2]);
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
});
pool.on('error', () => {});

const middleware = postgraphile(pool, 'public', {
  graphqlRoute: '/graphql',
  graphiql: false,
  watchPg: false,
  disableQueryLog: true,
  disableDefaultMutations: true,
  retryOnInitFail: false,
  dynamicJson: true,
  // Run and RunAttempt are partitioned by month: PostGraphile 4 shows each
  // partition as a table of its own unless told to show the parent (`allRuns`).
  usePartitionedParent: true,
  setofFunctionsContainNulls: false,
  ignoreRBAC: false,
  extendedErrors: [],
  showErrorStack: false,
});
// Introspection first: the port opens when the schema is built.
await middleware.getGraphQLSchema();

const server = http.createServer((request, response) => {
  if (request.url === '/health') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"status":"ok"}');
    return;
  }
  void middleware(request, response);
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');

process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.end().then(() => process.exit(0));
});
