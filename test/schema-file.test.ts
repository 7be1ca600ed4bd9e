import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { printedSchema, printedSubgraph, schemaFile, subgraphFile } from '../scripts/print-schema.ts';

describe('schema.graphql', () => {
  it('is the schema the code builds (run `npm run schema:print` after changing it)', async () => {
    expect(await readFile(schemaFile, 'utf8')).toBe(printedSchema());
  });
});

describe('schema/subgraph.graphql', () => {
  it('is the subgraph SDL the code builds for FEDERATION=on (run `npm run schema:print` after changing it)', async () => {
    expect(await readFile(subgraphFile, 'utf8')).toBe(printedSubgraph());
  });
});
