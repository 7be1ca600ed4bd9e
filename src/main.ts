// `npm start`: the gateway on PORT, until SIGINT or SIGTERM.
import { loadConfig } from './config.ts';
import { startServer } from './server.ts';

try {
  const server = await startServer(loadConfig());
  server.app.log.info(`GraphQL at ${server.url}/graphql`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (error) {
  process.stderr.write(`gateway: ${(error as Error).message}\n`);
  process.exit(1);
}
