// Plain graphql-yoga on node:http with a trivial schema: what a GraphQL
// request costs with nothing around it. Scenario (e) sends `{ __typename }`
// to it and to the gateway; the difference is what the gateway adds (Fastify,
// helmet, CORS, rate limits, the API key lookup, GraphQL armor, its context).
//
// Usage: node --import tsx bench/plain-yoga.ts <port>
import http from 'node:http';
import { createSchema, createYoga } from 'graphql-yoga';

const port = Number(process.argv[2]);
const yoga = createYoga({
  schema: createSchema({ typeDefs: 'type Query { hello: String }', resolvers: { Query: { hello: () => 'world' } } }),
  logging: false,
  graphiql: false,
});
const server = http.createServer(yoga);
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');

process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
});
