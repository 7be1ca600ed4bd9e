// The schema as its users read it (GraphiQL's docs pane, generated clients):
// graphql-schema-linter with every default rule, on the schema the code builds.
// Every type, field, argument, input field and enum value has a description.
import { buildSchema } from 'graphql';
import { Configuration } from 'graphql-schema-linter/lib/configuration.js';
import { findSchemaNodes } from 'graphql-schema-linter/lib/find_schema_nodes.js';
import { Schema } from 'graphql-schema-linter/lib/schema.js';
import { SourceMap } from 'graphql-schema-linter/lib/source_map.js';
import { validateSchemaDefinition } from 'graphql-schema-linter/lib/validator.js';
import { describe, expect, it } from 'vitest';
import { printedSchema } from '../scripts/print-schema.ts';

/** Findings the rules are told to pass over, by rule: types, `Type.field`, `Type.field.argument` or `Enum.VALUE`. */
const ignore: Record<string, string[]> = {
  // Their values are wire values: AgentType's are SPEC.md's agent `type` (`voice`, `chat`, `video`), CallOutcome's
  // the outcomes REST, `retry.on` and the attempts use (`answered`, `no_answer`, `busy`, `voicemail`, `failed`),
  // WebhookDeliveryStatus's a delivery's REST `status` (`pending`, `delivered`, `failed`).
  // Upper-casing them would break every client that sends or compares them.
  'enum-values-all-caps': ['AgentType', 'CallOutcome', 'WebhookDeliveryStatus'],
};

function lint(options: { ignore: Record<string, string[]> }) {
  const definition = printedSchema();
  const schema = new Schema(definition, new SourceMap({ 'schema.graphql': definition }));
  const configuration = new Configuration(schema, options);
  return validateSchemaDefinition(schema, configuration.getRules(), configuration);
}

describe('the schema linter (graphql-schema-linter, default rules)', () => {
  it('finds nothing but the listed exceptions', () => {
    expect(lint({ ignore }).map((finding) => `${finding.ruleName}: ${finding.message}`)).toEqual([]);
  });

  it('still has a finding for every listed exception (remove those not needed since)', () => {
    // Where each finding is in the printed schema, by rule, and where each exception's definitions are.
    const found = new Map<string, Set<number | undefined>>();
    for (const finding of lint({ ignore: {} })) {
      const locations = found.get(finding.ruleName) ?? new Set();
      locations.add(finding.nodes?.[0]?.loc?.start);
      found.set(finding.ruleName, locations);
    }
    const schema = buildSchema(printedSchema());
    const stale = Object.entries(ignore).flatMap(([rule, entries]) =>
      entries
        .filter((entry) => ![...findSchemaNodes([entry], schema)].some((node) => found.get(rule)?.has(node.loc?.start)))
        .map((entry) => `${rule}: ${entry}`),
    );
    expect(stale).toEqual([]);
  });
});
