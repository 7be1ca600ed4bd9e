// The load generator, run as its own process by bench/support.ts (runLoad):
// autocannon against one URL, first `warmup` seconds unmeasured, then
// `duration` seconds measured. Latencies are taken from each response at
// sub-millisecond resolution (autocannon's own histogram keeps whole
// milliseconds, too coarse for the trivial query). Prints one JSON line.
import autocannon, { type Result } from 'autocannon';
import type { LoadOptions, LoadResult } from './support.ts';

const options = JSON.parse(process.argv[2]!) as LoadOptions;

function run(duration: number, latencies?: number[]) {
  return new Promise<Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        method: options.method ?? 'GET',
        headers: options.headers,
        body: options.body,
        connections: options.connections,
        duration,
        timeout: 30,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    if (latencies) {
      instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
        if (statusCode >= 200 && statusCode < 300) latencies.push(responseTimeMs);
      });
    }
  });
}

const at = (sorted: number[], p: number) =>
  sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;

if (options.warmup > 0) await run(options.warmup);
// The parent samples CPU counters when the measured part starts.
console.log('measuring');
const latencies: number[] = [];
const result = await run(options.duration, latencies);
latencies.sort((a, b) => a - b);
const seconds = result.duration > 0 ? result.duration : options.duration;
const output: LoadResult = {
  requests: result['2xx'],
  rps: result['2xx'] / seconds,
  p50: at(latencies, 50),
  p99: at(latencies, 99),
  mean: latencies.reduce((sum, value) => sum + value, 0) / Math.max(1, latencies.length),
  max: latencies[latencies.length - 1] ?? NaN,
  errors: result.errors + result.timeouts,
  non2xx: result.non2xx,
  ...(options.latencies ? { latencies } : {}),
};
console.log(JSON.stringify(output));
