// Prints the GraphQL schema built from the code into schema.graphql; a test
// fails when the checked-in file drifts from it.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { printSchema } from 'graphql';
import { schema } from '../src/schema/index.ts';

export const schemaFile = path.resolve(import.meta.dirname, '..', 'schema.graphql');
export const printedSchema = () => `${printSchema(schema)}\n`;

if (process.argv[1] === import.meta.filename) {
  await writeFile(schemaFile, printedSchema());
  console.log(path.relative(process.cwd(), schemaFile));
}
