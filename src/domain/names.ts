// The one place the wire names of REST (SPEC.md's snake_case) and the field
// names of GraphQL (camelCase) are mapped onto each other.

export const camelCase = (name: string) => name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

export const pascalCase = (name: string) => {
  const camel = camelCase(name);
  return camel.charAt(0).toUpperCase() + camel.slice(1);
};
