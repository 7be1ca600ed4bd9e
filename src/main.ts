// `npm start`: the gateway on PORT, until SIGINT or SIGTERM. Stopping is
// graceful (see startServer's close) and bounded: the process exits within
// 10 s whatever is still pending.
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { loadConfig } from './config.ts';
import { startServer } from './server.ts';

const SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * Gives back the memory a burst of requests left behind, once the server is
 * idle. V8 collects garbage when JavaScript allocates, and an idle server
 * allocates next to nothing, so after a load the heap keeps the size it grew
 * to (hundreds of MiB) until the next burst. With `--expose-gc` (as `npm start`
 * and the Docker image run it), a full collection runs when a whole second
 * passed without work (event loop under 1% busy) and the heap has grown by
 * more than 32 MiB since the last one. It takes some 100 ms, only then.
 */
function collectWhenIdle(gc: () => void) {
  const GROWTH = 32 * 2 ** 20;
  let baseline = v8.getHeapStatistics().used_heap_size;
  let last = performance.eventLoopUtilization();
  setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    if (busy < 0.01 && v8.getHeapStatistics().used_heap_size > baseline + GROWTH) {
      gc();
      baseline = v8.getHeapStatistics().used_heap_size;
      last = performance.eventLoopUtilization();
    }
  }, 1000).unref();
}

try {
  const server = await startServer(loadConfig());
  server.app.log.info(`GraphQL at ${server.url}/graphql`);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) collectWhenIdle(gc);
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
