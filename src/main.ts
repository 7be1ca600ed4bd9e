// `npm start`: the gateway on PORT, until SIGINT or SIGTERM. Stopping is
// graceful (see startServer's close) and bounded: the process exits within
// 10 s whatever is still pending.
import { loadConfig } from './config.ts';
import { startServer } from './server.ts';

const SHUTDOWN_DEADLINE_MS = 10_000;

try {
  const server = await startServer(loadConfig());
  server.app.log.info(`GraphQL at ${server.url}/graphql`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.app.log.info({ signal }, 'shutting down');
    setTimeout(() => {
      server.app.log.error('shutdown took longer than 10 s: exiting');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    try {
      await server.close();
      process.exit(0);
    } catch (error) {
      server.app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
} catch (error) {
  process.stderr.write(`gateway: ${(error as Error).message}\n`);
  process.exit(1);
}
