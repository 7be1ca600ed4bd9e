// Clients built against the last released schema keep working: graphql-inspector
// compares the schema the code builds with schema/released.graphql. A breaking
// change must be announced in CHANGELOG.md's "Unreleased" section, under
// "### Breaking", naming its path (`Type.field`); a field or enum value may only
// go once the released schema marks it @deprecated(reason:).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type Change, ChangeType, CriticalityLevel, diff } from '@graphql-inspector/core';
import { buildSchema, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { printedSchema } from '../scripts/print-schema.ts';
import { subgraphSchema } from '../src/schema/index.ts';

const root = path.resolve(import.meta.dirname, '..');

/** The lines of CHANGELOG.md's "## Unreleased" section under "### Breaking". */
function announcedBreakingChanges(changelog: string): string {
  const unreleased = changelog.split(/^## /m).find((section) => section.startsWith('Unreleased')) ?? '';
  return unreleased.split(/^### /m).find((part) => part.startsWith('Breaking')) ?? '';
}

// The schema served (schema.graphql), and the same as a federation subgraph (FEDERATION=on,
// schema/subgraph.graphql): a router's clients are clients too. The subgraph is compared as
// graphql-js prints it, its federation fields (`_entities`, `_service`) being additions.
const served = {
  'the schema': printedSchema,
  'the subgraph schema (FEDERATION=on)': () => printSchema(subgraphSchema()),
};

const changesSinceRelease = async (printed: () => string) =>
  diff(buildSchema(await readFile(path.join(root, 'schema', 'released.graphql'), 'utf8')), buildSchema(printed()));

const describeChange = (change: Change) => `${change.path ?? ''}: ${change.message}`;

describe.each(Object.entries(served))('changes of %s since the last release', (_name, printed) => {
  it('breaks nothing that CHANGELOG.md does not announce', async () => {
    const announced = announcedBreakingChanges(await readFile(path.join(root, 'CHANGELOG.md'), 'utf8'));
    const unannounced = (await changesSinceRelease(printed)).filter(
      (change) => change.criticality.level === CriticalityLevel.Breaking && !announced.includes(`\`${change.path}\``),
    );
    expect(unannounced.map(describeChange)).toEqual([]);
  });

  it('removes only what the released schema deprecated', async () => {
    const silent = (await changesSinceRelease(printed)).filter(
      (change) =>
        (change.type === ChangeType.FieldRemoved &&
          !(change.meta as { isRemovedFieldDeprecated: boolean }).isRemovedFieldDeprecated) ||
        (change.type === ChangeType.EnumValueRemoved &&
          !(change.meta as { isEnumValueDeprecated: boolean }).isEnumValueDeprecated),
    );
    expect(silent.map(describeChange)).toEqual([]);
  });
});

describe('the breaking-change check', () => {
  it('recognizes a breaking change and where CHANGELOG.md announces it', async () => {
    // The same comparison on a removed field: it is breaking, and counts as announced only in the Breaking list.
    const before = buildSchema('type Query { kept: Int, dropped: Int @deprecated(reason: "use kept") }');
    const after = buildSchema('type Query { kept: Int }');
    const [removed] = await diff(before, after);
    expect(removed).toMatchObject({
      type: ChangeType.FieldRemoved,
      path: 'Query.dropped',
      criticality: { level: CriticalityLevel.Breaking },
    });
    const changelog =
      '# Changelog\n\n## Unreleased\n\n### Breaking\n\n- `Query.dropped` removed (deprecated since 0.1.0).\n\n## 0.1.0\n\n### Breaking\n\n- `Query.other`\n';
    expect(announcedBreakingChanges(changelog)).toContain('`Query.dropped`');
    expect(announcedBreakingChanges(changelog)).not.toContain('`Query.other`');
  });
});
