// Prints the GraphQL schema built from the code into schema.graphql; a test
// fails when the checked-in file drifts from it.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { printSubgraphSchema } from '@apollo/subgraph';
import { printSchema } from 'graphql';
import { schema, subgraphSchema } from '../src/schema/index.ts';

export const schemaFile = path.resolve(import.meta.dirname, '..', 'schema.graphql');
export const printedSchema = () => `${printSchema(schema)}\n`;
/** The subgraph's SDL (FEDERATION=on), as a router composes it: with @link and @key. */
export const subgraphFile = path.resolve(import.meta.dirname, '..', 'schema', 'subgraph.graphql');
export const printedSubgraph = () => `${printSubgraphSchema(subgraphSchema())}\n`;

if (process.argv[1] === import.meta.filename) {
  await writeFile(schemaFile, printedSchema());
  await writeFile(subgraphFile, printedSubgraph());
  console.log(path.relative(process.cwd(), schemaFile));
  console.log(path.relative(process.cwd(), subgraphFile));
}
