// Trusted documents: a client team registers the operations its build
// produced (relay-compiler's persisted_queries.json, or Apollo's
// persisted-query-manifest.json) into the allow-list the server reads
// (PERSISTED_OPERATIONS_FILE), so GRAPHQL_PERSISTED_ONLY=on serves them.
// The allow-list is keyed by the SHA-256 of each text, the key the clients
// send as `extensions.persistedQuery.sha256Hash`: an operation whose manifest
// id is another hash would be refused at run time, so it is refused here.
import { existsSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { type GraphQLSchema, parse, validate } from 'graphql';
import { loadPersistedFile, operationHash } from './protections.ts';

interface ManifestOperation {
  id: string;
  text: string;
  /** How problems name it: its operation name, else its id. */
  label: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Relay's `{ "<id>": "<text>" }` or Apollo's `{ "operations": [{ id, body, name, type }] }`. */
function operationsOf(manifest: unknown): ManifestOperation[] {
  if (isRecord(manifest) && Array.isArray(manifest.operations)) {
    return manifest.operations.map((operation: unknown, index) => {
      if (!isRecord(operation) || typeof operation.id !== 'string' || typeof operation.body !== 'string') {
        throw new Error(`operations[${index}] needs a string "id" and "body"`);
      }
      const label = typeof operation.name === 'string' ? operation.name : operation.id;
      return { id: operation.id, text: operation.body, label };
    });
  }
  if (isRecord(manifest) && Object.values(manifest).every((text) => typeof text === 'string')) {
    return Object.entries(manifest as Record<string, string>).map(([id, text]) => ({
      id,
      text,
      label: /^\s*(?:query|mutation|subscription)\s+(\w+)/.exec(text)?.[1] ?? id,
    }));
  }
  throw new Error(
    'not a persisted-queries manifest: expected Relay\'s { "<id>": "<text>" } or Apollo\'s { "operations": [{ "id", "body", … }] }',
  );
}

/** What keeps an operation out of the allow-list: an id that is not its SHA-256, or a document the schema refuses. */
function problemsOf(operation: ManifestOperation, schema: GraphQLSchema): string[] {
  const problems: string[] = [];
  if (operation.id !== operationHash(operation.text)) {
    problems.push('its id is not the SHA-256 of its text (relay-compiler: set persistConfig.algorithm to "SHA256")');
  }
  try {
    problems.push(...validate(schema, parse(operation.text)).map((error) => error.message));
  } catch (error) {
    problems.push((error as Error).message);
  }
  return problems.map((problem) => `${operation.label}: ${problem}`);
}

/**
 * Adds a manifest's operations to the allow-list file (created if absent; the
 * operations it holds already stay, so several clients can register into one
 * file). All or nothing: one refused operation leaves the file as it was.
 */
export async function importManifest(manifestFile: string, allowListFile: string, schema: GraphQLSchema) {
  let manifest: unknown;
  try {
    manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
  } catch (error) {
    throw new Error(`${manifestFile}: ${(error as Error).message}`);
  }
  const operations = operationsOf(manifest);
  const problems = operations.flatMap((operation) => problemsOf(operation, schema));
  if (problems.length > 0) throw new Error(`${manifestFile}: refused, nothing imported:\n${problems.join('\n')}`);
  const allowList = existsSync(allowListFile) ? loadPersistedFile(allowListFile) : {};
  const added = operations.filter((operation) => !(operation.id in allowList)).length;
  for (const operation of operations) allowList[operation.id] = operation.text;
  const sorted = Object.fromEntries(Object.entries(allowList).sort(([a], [b]) => a.localeCompare(b)));
  // Written aside then renamed: a server starting meanwhile reads the old file or the new one, never half of one.
  const partial = `${allowListFile}.${process.pid}.tmp`;
  await writeFile(partial, `${JSON.stringify(sorted, null, 2)}\n`);
  await rename(partial, allowListFile);
  return { file: allowListFile, operations: operations.length, added, total: Object.keys(sorted).length };
}
