// E6 (page 2 of a batch's FINISHED runs) against two builds of the gateway
// under the same load, alternately: this checkout's and another's (E6_AB_OLD,
// a worktree whose dist/ is built), reporting each one's server CPU (user +
// sys) per answered request. The machine is shared: rounds alternate so that
// both sides see the same background load.
//   E6_AB_OLD=/path/to/old/worktree npm run bench:e6

import { randomBytes } from 'node:crypto';
import path from 'node:path';
import {
  cpuMs,
  createBenchDatabase,
  freePort,
  gatewayEnv,
  npmStart,
  runLoad,
  type ServerProcess,
  startGateway,
  startServer,
  stopAll,
} from './support.ts';
import { seedBatch } from './tracing.ts';

const OLD = process.env.E6_AB_OLD;
if (!OLD) throw new Error('E6_AB_OLD: the worktree of the build to compare with (its dist/ built)');
const ROUNDS = Number(process.env.E6_AB_ROUNDS ?? 3);
const timing = { duration: Number(process.env.E6_AB_SECONDS ?? 10), warmup: 2, connections: 8 };

const database = await createBenchDatabase();
try {
  const seeded = await seedBatch(database);
  const path2 = `/org/${seeded.organizationId}/workflows/${seeded.workflowId}/runs?status=FINISHED&batch_id=${seeded.batchId}&sort=started_desc&page=2&limit=100`;
  const env = { DATABASE_POOL_SIZE: '10', ENCRYPTION_KEY: randomBytes(32).toString('hex') };
  const fresh = await startGateway({ name: 'new', databaseUrl: database.url, env });
  const oldPort = await freePort();
  const old = await startServer({
    name: 'old',
    script: path.join(OLD, 'dist/main.js'),
    // The node flags of this checkout's `npm start`: the two builds differ in their code only.
    nodeArgs: npmStart().nodeArgs,
    env: { ...gatewayEnv(database.url, oldPort), ...env },
    port: oldPort,
    readyPath: '/ready',
  });
  const sides: [string, ServerProcess][] = [
    ['old', old],
    ['new', fresh],
  ];
  const bodies = await Promise.all(
    sides.map(async ([, server]) => {
      const answer = await fetch(`${server.url}${path2}`, { headers: { 'x-api-key': seeded.apiKey } });
      return `${answer.status} ${await answer.text()}`;
    }),
  );
  if (bodies[0] !== bodies[1]) throw new Error('old and new answer E6 differently');
  const totals = new Map(sides.map(([name]) => [name, { cpu: 0, requests: 0 }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, server] of round % 2 ? [...sides].reverse() : sides) {
      let atStart = 0;
      const load = await runLoad(
        { url: `${server.url}${path2}`, headers: { 'x-api-key': seeded.apiKey }, ...timing },
        () => {
          atStart = cpuMs(server.pid);
        },
      );
      const cpu = cpuMs(server.pid) - atStart;
      const total = totals.get(name)!;
      total.cpu += cpu;
      total.requests += load.requests;
      console.log(
        `round ${round + 1} ${name}: ${load.rps.toFixed(0)} req/s, ${(cpu / load.requests).toFixed(3)} ms CPU/request`,
      );
    }
  }
  for (const [name, { cpu, requests }] of totals)
    console.log(
      `${name}: ${(cpu / requests).toFixed(3)} ms server CPU (user+sys) per request over ${requests} requests`,
    );
} finally {
  await stopAll();
  await database.drop();
}
