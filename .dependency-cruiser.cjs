// The gateway's layers, lowest first: a module may import its own layer and
// the layers below it, never one above (README.md, Architecture). Type-only
// imports count: a type is a dependency too. `npm run lint:layers` checks it.
const layers = [
  // Imports nothing of the gateway's but the generated Prisma enums: the environment, read once,
  // and what anything may use (time, deadlines, bounded caches, claim loops, traces, the console's GraphQL documents).
  [
    'base',
    '^src/(config[.]ts|config/|key-scopes[.]ts|clock[.]ts|deadline[.]ts|bounded-map[.]ts|claim-loop[.]ts|observability/(tracing|operation-label)|console-operations/)',
  ],
  // The records the API answers with, one declaration each (src/records/record.ts), and the zod
  // schemas of the values they hold: below the database, whose SQL writes them as JSON.
  ['records', '^src/records/'],
  // The one client for requests made on a tenant's behalf, and the addresses it may reach.
  ['outbound', '^src/outbound/'],
  // Whether Redis answers: what shares counters and events between instances falls back on when it does not.
  ['redis', '^src/redis/'],
  ['db', '^src/db/'],
  ['auth', '^src/auth/'],
  ['domain', '^src/domain/'],
  ['events', '^src/events/'],
  ['webhooks', '^src/webhooks/'],
  ['engine', '^src/engine/'],
  ['livekit', '^src/livekit/'],
  ['metrics', '^src/observability/(metrics|request-log)[.]ts$'],
  ['services', '^src/services[.]ts$'],
  ['schema', '^src/schema/'],
  ['requests', '^src/requests/'],
  ['graphql', '^src/graphql/'],
  ['rest', '^src/rest/'],
  ['http', '^src/http/'],
  ['entry', '^src/(server|main|cli)[.]ts$|^src/demo/'],
];

const above = (index) =>
  layers
    .slice(index + 1)
    .map(([, path]) => `(${path})`)
    .join('|');

module.exports = {
  forbidden: [
    ...layers.slice(0, -1).map(([name, path], index) => ({
      name: `${name}-imports-down-only`,
      comment: `${name} may import only its own layer and those below it`,
      severity: 'error',
      from: { path },
      to: { path: above(index) },
    })),
    {
      name: 'nothing-imports-http',
      comment: 'src/http/ is the host: only the entry points start it',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(http/|server[.]ts$|main[.]ts$|cli[.]ts$)' },
      to: { path: '^src/http/' },
    },
    {
      name: 'console-is-the-browser',
      comment:
        'src/console/ is bundled for the browser: it shares only the GraphQL documents (src/console-operations/), the name conversion and the table of key scopes',
      severity: 'error',
      from: { path: '^src/console/' },
      to: { path: '^src/', pathNot: '^src/((console|console-operations)/|records/names[.]ts$|key-scopes[.]ts$)' },
    },
    {
      name: 'server-does-not-import-the-console',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/console/' },
      to: { path: '^src/console/' },
    },
    {
      name: 'every-module-in-a-layer',
      comment: 'a new folder or top-level file gets a place in the layers above',
      severity: 'error',
      from: { path: '^src/', pathNot: [...layers.map(([, path]) => path), '^src/(console|generated)/'] },
      to: {},
    },
    {
      name: 'no-circular',
      comment: 'no import cycles that run: a type-only import is erased, and cannot close one',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
