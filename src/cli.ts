// The operator command line: `npx gateway <command>`. Results are JSON on
// stdout and nothing else goes there; failures go to stderr with exit code 1
// (2 for a misused command). Reads the same configuration as the server.
//
// A command loads only the modules it uses (dynamic imports below): `--help`
// or `keys revoke` should not pay for the GraphQL schema or the CSV parser.
import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';
import type { Database } from './db/database.ts';
import type { Progress } from './demo/seed-demo.ts';
import { DomainError } from './domain/errors.ts';
import type { Scope } from './domain/scope.ts';
import { ALL_SCOPES, HELD_SCOPES } from './key-scopes.ts';

const organizations = () => import('./domain/organizations.ts');

/** A progress bar on stderr when it is a terminal (stdout carries only the JSON result). */
async function progressBar(): Promise<Progress> {
  if (!process.stderr.isTTY) return { start() {}, advance() {}, stop() {} };
  const { Presets, SingleBar } = await import('cli-progress');
  const bar = new SingleBar(
    { stream: process.stderr, format: ' {label} [{bar}] {value}/{total}', hideCursor: true },
    Presets.shades_classic,
  );
  return {
    start: (total, label) => bar.start(total, 0, { label }),
    advance: (by = 1) => bar.increment(by),
    stop: () => bar.stop(),
  };
}

class UsageError extends Error {}

interface Command {
  usage: string;
  summary: string;
  options: Record<string, { type: 'string'; description: string; required: boolean }>;
  /** The file the command reads, given after its name: what it is. */
  file?: string;
  run(values: Record<string, string>, file: string): Promise<unknown>;
}

/** The chunks of `stream`, counted on the progress bar on their way. */
async function* counted(stream: AsyncIterable<Buffer>, progress: Progress) {
  for await (const chunk of stream) {
    progress.advance(chunk.length);
    yield chunk;
  }
}

/**
 * A write of the CLI with its audit event, in one transaction
 * (src/domain/audit-log.ts): recorded as no key's, from the command line.
 */
async function audited<Client extends { $transaction: unknown }, T>(
  client: Client,
  organizationId: string,
  operation: string,
  work: (prisma: Client) => Promise<T>,
  made: (result: T) => { type: string; id: string } | null,
): Promise<T> {
  const { recordWrite } = await import('./domain/audit-log.ts');
  const actor = { keyId: null, keyName: null, sourceIp: null, userAgent: 'gateway cli' };
  return recordWrite(client, { organizationId, actor, operation, made }, work);
}

/**
 * The working (unrevoked, unexpired) key `key` names (its id and organization), to record a write
 * about it; null when there is none (nothing is written, nothing recorded).
 */
async function keyNamed(db: Database, key: string) {
  const [{ apiKeyByHash }, { hashApiKey }] = await Promise.all([
    import('./db/sql/api-key-by-hash.ts'),
    import('./auth/api-keys.ts'),
  ]);
  const row = await apiKeyByHash(db.sql, hashApiKey(key));
  const expired = row?.expiresAt && row.expiresAt.getTime() <= Date.now();
  return row && !row.revokedAt && !expired ? row : null;
}

/** `gateway prospects import`: the file streamed into the import, with its progress on stderr. */
async function importFile(db: Database, values: Record<string, string>, file: string) {
  const [
    { createReadStream },
    { stat },
    { tenantClient },
    { importOptionsOf, prospectImportOptions, readProspectCsv, writeProspectImport },
    { parseOrThrow },
    { presentImport },
  ] = await Promise.all([
    import('node:fs'),
    import('node:fs/promises'),
    import('./db/tenant.ts'),
    import('./domain/prospect-import.ts'),
    import('./domain/validation.ts'),
    import('./rest/routes/prospect-import.ts'),
  ]);
  const options = parseOrThrow(prospectImportOptions, {
    list_name: values['list-name'],
    tag_ids: values['tag-ids']
      ?.split(',')
      .map((id) => id.trim())
      .filter(Boolean),
    default_country: values['default-country'],
    on_duplicate: values['on-duplicate'],
  });
  const organizationId = values.org!;
  if (!(await db.prisma.organization.findUnique({ where: { id: organizationId } })))
    throw new Error('organization not found');
  const scope: Scope = {
    prisma: tenantClient(db.prisma, organizationId),
    viewer: { organizationId, apiKeyId: 'cli', scopes: ['*'] },
  };
  const progress = await progressBar();
  progress.start((await stat(file)).size, 'reading');
  let written = 0;
  try {
    const checked = await importOptionsOf(scope, options);
    // Read and checked before the write's transaction opens: it holds only the writing.
    const parsed = await readProspectCsv(counted(createReadStream(file), progress), checked);
    const result = await audited(
      scope.prisma,
      organizationId,
      'importProspects',
      (prisma) =>
        writeProspectImport({ ...scope, prisma }, parsed, checked, (rows, total) => {
          if (written === 0) {
            progress.stop();
            progress.start(total, 'writing');
          }
          progress.advance(rows - written);
          written = rows;
        }),
      () => null,
    );
    return presentImport(result);
  } finally {
    progress.stop();
  }
}

async function withDatabase<T>(work: (db: Database) => Promise<T>, prepare = true): Promise<T> {
  const config = loadConfig();
  const db = prepare
    ? await (await import('./domain/prepare-database.ts')).prepareDatabase(config.storage)
    : await (await import('./db/database.ts')).openDatabase(config.storage);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

const commands: Record<string, Command> = {
  migrate: {
    usage: 'gateway migrate',
    summary: 'Apply pending database migrations.',
    options: {},
    run: () =>
      withDatabase(async (db) => ({ applied: await (await import('./db/migrator.ts')).migrate(db.sql) }), false),
  },
  'orgs create': {
    usage: 'gateway orgs create --name NAME',
    summary: 'Create an organization and its first API key (shown once).',
    options: { name: { type: 'string', description: 'the organization name', required: true } },
    run: ({ name }) =>
      withDatabase(async (db) => {
        const { organization, apiKey } = await (await organizations()).createOrganization(db.prisma, name!);
        return { organization_id: organization.id, api_key: apiKey };
      }),
  },
  'keys create': {
    usage: 'gateway keys create --org ORG_ID [--name NAME] [--scopes SCOPES] [--expires-at TIME]',
    summary: 'Issue another API key for an organization (shown once; at most API_KEYS_PER_ORGANIZATION working).',
    options: {
      org: { type: 'string', description: 'the organization id', required: true },
      name: { type: 'string', description: 'a label for the key', required: false },
      scopes: {
        type: 'string',
        description: `what it may do, comma-separated: ${HELD_SCOPES.join(', ')} (default *, everything)`,
        required: false,
      },
      'expires-at': { type: 'string', description: 'when it stops working (RFC 3339)', required: false },
    },
    run: (values) =>
      withDatabase(async (db) => {
        const domain = await organizations();
        // The REST body's schema: the same rules, the same messages.
        const data = domain.parseKeyCreate({
          name: values.name,
          scopes: values.scopes?.split(',').map((scope) => scope.trim()) ?? [ALL_SCOPES],
          expires_at: values['expires-at'],
        });
        const issued = await audited(
          db.prisma,
          values.org!,
          'createApiKey',
          (prisma) =>
            domain.issueApiKey(prisma, values.org!, {
              name: data.name,
              scopes: data.scopes,
              expiresAt: data.expires_at ? new Date(data.expires_at) : null,
              maxActiveKeys: loadConfig().apiKeysPerOrganization,
            }),
          (key) => ({ type: 'ApiKey', id: key.apiKeyId }),
        );
        return { id: issued.apiKeyId, api_key: issued.apiKey, scopes: issued.scopes, expires_at: issued.expiresAt };
      }),
  },
  'seed-demo': {
    usage: 'gateway seed-demo [--org ORG_ID] [--prospects N]',
    summary: 'Load demo data (a new organization unless --org); its batch runs once a server is up.',
    options: {
      org: { type: 'string', description: 'seed this organization (default: a new one, key printed)', required: false },
      prospects: { type: 'string', description: 'how many prospects (default 500, at most 100000)', required: false },
    },
    run: ({ org, prospects }) => {
      const count = prospects === undefined ? 500 : Number(prospects);
      if (!Number.isInteger(count) || count < 1 || count > 100_000)
        throw new UsageError('--prospects must be 1 to 100000');
      return withDatabase(async (db) => {
        const config = loadConfig();
        const [{ seedDemo }, { loadSecretBox }] = await Promise.all([
          import('./demo/seed-demo.ts'),
          import('./domain/secrets.ts'),
        ]);
        return seedDemo(
          db,
          loadSecretBox(config.storage, config.encryptionKey),
          { organizationId: org, prospects: count, outbound: config.webhooks },
          await progressBar(),
        );
      });
    },
  },
  'keys rotate': {
    usage: 'gateway keys rotate --key KEY [--grace-seconds N]',
    summary:
      'Issue a successor to a key, with its scopes and expiry (shown once); the old key is revoked, or works N seconds more.',
    options: {
      key: { type: 'string', description: 'the API key to replace', required: true },
      'grace-seconds': {
        type: 'string',
        description: 'how long the old key keeps working (0, the default, to 86400)',
        required: false,
      },
    },
    run: (values) =>
      withDatabase(async (db) => {
        const domain = await organizations();
        const grace = values['grace-seconds'];
        const data = domain.parseKeyRotate({ grace_seconds: grace === undefined ? undefined : Number(grace) });
        const named = await keyNamed(db, values.key!);
        const issued = named
          ? await audited(
              db.prisma,
              named.organizationId,
              'rotateApiKey',
              (prisma) => domain.rotateApiKey(prisma, { key: values.key! }, { graceSeconds: data.grace_seconds }),
              () => ({ type: 'ApiKey', id: named.id }),
            )
          : null;
        if (!issued) throw new Error('no such key, or it was revoked or has expired already');
        return { api_key: issued.apiKey, scopes: issued.scopes };
      }),
  },
  'persisted-operations import': {
    usage: 'gateway persisted-operations import --manifest FILE [--out FILE]',
    summary: "Add a Relay or Apollo persisted-queries manifest's operations to the allow-list.",
    options: {
      manifest: {
        type: 'string',
        description: "relay-compiler's persisted_queries.json or Apollo's persisted-query-manifest.json",
        required: true,
      },
      out: {
        type: 'string',
        description: 'the allow-list to write (default: PERSISTED_OPERATIONS_FILE)',
        required: false,
      },
    },
    run: async ({ manifest, out }) => {
      const allowList = out ?? loadConfig().graphqlLimits.persistedOperationsFile;
      if (!allowList) throw new UsageError('--out is required when PERSISTED_OPERATIONS_FILE is unset');
      // Checked against the schema this gateway serves: an operation it would refuse is not registered.
      const [{ schema }, { importManifest }] = await Promise.all([
        import('./schema/index.ts'),
        import('./graphql/persisted-manifest.ts'),
      ]);
      return importManifest(manifest!, allowList, schema);
    },
  },
  'prospects import': {
    usage:
      'gateway prospects import --org ORG_ID FILE.csv [--list-name NAME] [--tag-ids IDS] [--default-country CC] [--on-duplicate MODE]',
    summary: 'Import prospects from a CSV file, streamed, all or nothing.',
    file: 'FILE.csv: a header row naming the columns, then one prospect per row',
    options: {
      org: { type: 'string', description: 'the organization id', required: true },
      'list-name': {
        type: 'string',
        description: 'also create a prospect list of the imported prospects',
        required: false,
      },
      'tag-ids': { type: 'string', description: 'tags (tag_…, comma-separated) to put on them', required: false },
      'default-country': {
        type: 'string',
        description: 'ISO country (US, FR…) numbers without + are read in',
        required: false,
      },
      'on-duplicate': {
        type: 'string',
        description: 'skip (default), update or error for a phone a prospect has',
        required: false,
      },
    },
    run: (values, file) => withDatabase((db) => importFile(db, values, file)),
  },
  'keys revoke': {
    usage: 'gateway keys revoke --key KEY',
    summary: 'Revoke an API key; it is refused from then on.',
    options: { key: { type: 'string', description: 'the API key to revoke', required: true } },
    run: ({ key }) =>
      withDatabase(async (db) => {
        const domain = await organizations();
        const named = await keyNamed(db, key!);
        if (!named) return { revoked: 0 };
        const revoked = await audited(
          db.prisma,
          named.organizationId,
          'revokeApiKey',
          (prisma) => domain.revokeApiKey(prisma, key!),
          () => ({ type: 'ApiKey', id: named.id }),
        );
        return { revoked };
      }),
  },
};

function helpText(command?: Command): string {
  if (command) {
    const options = Object.entries(command.options).map(
      ([name, option]) => `  --${name.padEnd(11)} ${option.description}${option.required ? ' (required)' : ''}`,
    );
    const file = command.file ? [`  ${command.file}`] : [];
    return [
      `usage: ${command.usage}`,
      '',
      command.summary,
      '',
      ...file,
      ...options,
      '  --help        show this help',
      '',
    ].join('\n');
  }
  const lines = Object.values(commands).map((entry) => `  ${entry.usage.padEnd(48)} ${entry.summary}`);
  return [
    'usage: gateway <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Configuration comes from the environment, as for the server: DATABASE_URL',
    '(unset: the embedded database in DATA_DIR, default ./data).',
    '',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const words = argv.filter((word) => !word.startsWith('-'));
  const name = [words.slice(0, 2).join(' '), words[0] ?? ''].find((candidate) => candidate in commands);
  const command = name ? commands[name] : undefined;
  if (argv.includes('--help') || argv.includes('-h') || argv.length === 0) {
    process.stdout.write(helpText(command));
    return argv.length === 0 ? 2 : 0;
  }
  try {
    if (!command) throw new UsageError(`unknown command: ${words.join(' ') || '(none)'}`);
    const { values, positionals } = parseArgs({
      args: argv,
      options: Object.fromEntries(Object.entries(command.options).map(([key, option]) => [key, { type: option.type }])),
      allowPositionals: true,
      strict: true,
    });
    const expected = name!.split(' ').length + (command.file ? 1 : 0);
    if (positionals.length > expected) throw new UsageError(`unexpected argument: ${positionals.at(-1)}`);
    if (positionals.length < expected) throw new UsageError(`${command.file!.split(':')[0]} is required`);
    for (const [key, option] of Object.entries(command.options)) {
      if (option.required && !values[key]) throw new UsageError(`--${key} is required`);
    }
    const result = await command.run(values as Record<string, string>, positionals[expected - 1]!);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`gateway: ${(error as Error).message}\n`);
    // A refused input's problems (a CSV file's lines), one JSON object a line.
    const detail = error instanceof DomainError ? error.detail : null;
    if (Array.isArray(detail)) for (const problem of detail) process.stderr.write(`${JSON.stringify(problem)}\n`);
    if (usage) process.stderr.write(`run 'gateway ${name ? `${name} ` : ''}--help' for usage\n`);
    return usage ? 2 : 1;
  }
}
