// The parts of graphql-schema-linter (no types of its own) that test/schema-lint.test.ts uses.
declare module 'graphql-schema-linter/lib/configuration.js' {
  export class Configuration {
    constructor(schema: unknown, options?: { ignore?: Record<string, string[]> });
    getRules(): unknown[];
  }
}

declare module 'graphql-schema-linter/lib/schema.js' {
  export class Schema {
    constructor(definition: string, sourceMap: unknown);
  }
}

declare module 'graphql-schema-linter/lib/source_map.js' {
  export class SourceMap {
    constructor(sourceFiles: Record<string, string>);
  }
}

declare module 'graphql-schema-linter/lib/validator.js' {
  import type { GraphQLError } from 'graphql';
  export function validateSchemaDefinition(
    schema: unknown,
    rules: unknown[],
    configuration: unknown,
  ): (GraphQLError & { ruleName: string })[];
}

declare module 'graphql-schema-linter/lib/find_schema_nodes.js' {
  import type { ASTNode, GraphQLSchema } from 'graphql';
  /** The definitions a scope (`Type`, `Type.field`, `Type.field.argument`, `Enum.VALUE`) covers, with all they contain. */
  export function findSchemaNodes(scopes: string[], schema: GraphQLSchema): Set<ASTNode>;
}
