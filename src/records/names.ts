// The one place the wire names of REST (SPEC.md's snake_case) and the field
// names of GraphQL (camelCase) are mapped onto each other: records, GraphQL's
// generated types, the domain's columns and the console all rename with these.

export const camelCase = (name: string) => name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
