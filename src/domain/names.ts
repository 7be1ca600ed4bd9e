// The one place the wire names of REST (SPEC.md's snake_case) and the field
// names of GraphQL (camelCase) are mapped onto each other.

export const camelCase = (name: string) => name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

// Every key of every REST answer is renamed: the names are few, the renamings many.
const snakeNames = new Map<string, string>();
const SNAKE_NAMES_KEPT = 10_000;

export const snakeCase = (name: string) => {
  let snake = snakeNames.get(name);
  if (snake === undefined) {
    snake = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    // Bounded: a name that is not the schema's (an alias, say) cannot grow the map without end.
    if (snakeNames.size < SNAKE_NAMES_KEPT) snakeNames.set(name, snake);
  }
  return snake;
};
