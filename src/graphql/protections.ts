// Limits on what one GraphQL document may ask for, and who may ask what:
// depth, aliases, tokens and directives (graphql-armor), introspection on or
// off, and an allow-list mode in which only persisted operations run (the REST
// layer's own operations are always persisted). What depends on the variables
// too (cost, list lengths, the variables' size) is checked as the operation
// starts: src/graphql/use-operation-bounds.ts.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { type GraphQLError, NoSchemaIntrospectionCustomRule, type ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLLimits } from '../config/request-limits.ts';
import { BAD_INPUT } from '../domain/errors.ts';
import { invalidDocumentError } from './bad-input.ts';

/** The key a persisted operation is known by: the SHA-256 of its text (Apollo's convention). */
export const operationHash = (text: string) => createHash('sha256').update(text).digest('hex');

/** The allow-list file, each key checked to be the SHA-256 of its operation. */
export function loadPersistedFile(file: string): Record<string, string> {
  const operations = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  for (const [hash, text] of Object.entries(operations)) {
    if (typeof text !== 'string' || operationHash(text) !== hash) {
      throw new Error(`${file}: "${hash}" is not the SHA-256 of its operation`);
    }
  }
  return operations as Record<string, string>;
}

/**
 * graphql-armor throws its refusals as "Syntax Error: …" with no code. They are
 * reported instead as what they are, a document that fails validation: one
 * code, GRAPHQL_VALIDATION_FAILED, and the status GraphQL over HTTP gives it.
 * The token limit, counted while parsing, has no validation context to report
 * to, so its error is thrown in the same shape.
 */
const refusedAsInvalid = {
  propagateOnRejection: false,
  onReject: [
    (context: ValidationContext | null, error: GraphQLError) => {
      const refused = invalidDocumentError(error.message.replace(/^Syntax Error: /, ''));
      if (!context) throw refused;
      context.reportError(refused);
    },
  ],
};

/** The operations that may run by their hash: the gateway's own and the allow-list file's. */
export interface PersistedOperations {
  textOf(hash: string): string | undefined;
  /** Every persisted operation's text. */
  texts(): Iterable<string>;
  /** Only these run (GRAPHQL_PERSISTED_ONLY=on). */
  only: boolean;
}

export function persistedOperations(limits: GraphQLLimits, internalOperations: string[]): PersistedOperations {
  const persisted = new Map<string, string>(internalOperations.map((text) => [operationHash(text), text]));
  if (limits.persistedOperationsFile) {
    for (const [hash, text] of Object.entries(loadPersistedFile(limits.persistedOperationsFile)))
      persisted.set(hash, text);
  }
  return { textOf: (hash) => persisted.get(hash), texts: () => persisted.values(), only: limits.persistedOnly };
}

const refusal = (message: string) => ({ message, extensions: { code: BAD_INPUT, status: 400, http: { status: 400 } } });
const persistedRefusals = {
  notFound: refusal('PersistedQueryNotFound: no persisted operation has this hash'),
  persistedQueryOnly: refusal('PersistedQueryOnly: this server runs persisted operations only'),
  keyNotFound: refusal('PersistedQueryKeyNotFound: the request names no persisted operation'),
};

/**
 * The text an operation's parameters name: a persisted one by its hash
 * (`extensions.persistedQuery.sha256Hash`), else the query itself where
 * arbitrary operations may run. For transports yoga's plugin does not see
 * (graphql-ws), so the allow-list holds there too.
 */
export function operationTextOf(operations: PersistedOperations, params: { query?: unknown; extensions?: unknown }) {
  const hash = (params.extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery
    ?.sha256Hash;
  if (typeof hash === 'string') return operations.textOf(hash) ?? persistedRefusals.notFound;
  if (operations.only) return persistedRefusals.persistedQueryOnly;
  return typeof params.query === 'string' ? params.query : persistedRefusals.keyNotFound;
}

export function protectionPlugins(limits: GraphQLLimits, operations: PersistedOperations): Plugin[] {
  return [
    EnvelopArmorPlugin({
      // Depth counts fields only: the fragments a Relay client composes its queries of add no level.
      maxDepth: { n: limits.maxDepth, flattenFragments: true, ...refusedAsInvalid },
      maxAliases: { n: limits.maxAliases, ...refusedAsInvalid },
      maxTokens: { n: limits.maxTokens, ...refusedAsInvalid },
      maxDirectives: { n: limits.maxDirectives, ...refusedAsInvalid },
      // Its cost limit sees no variables: the cost is measured as the operation starts instead.
      costLimit: { enabled: false },
      // Suggestions ("did you mean…") stay: they help clients and reveal nothing introspection would not.
      blockFieldSuggestion: { enabled: !limits.introspection },
    }) as Plugin,
    ...(limits.introspection
      ? []
      : [
          {
            onValidate: ({ addValidationRule }) => addValidationRule(NoSchemaIntrospectionCustomRule),
          } satisfies Plugin,
        ]),
    usePersistedOperations({
      getPersistedOperation: (hash) => operations.textOf(hash) ?? null,
      allowArbitraryOperations: !operations.only,
      customErrors: persistedRefusals,
    }),
  ];
}
