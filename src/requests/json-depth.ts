// Bodies nested deeper than any legitimate request are refused before they
// are parsed: everything downstream (validation, renaming, the database's
// JSON) walks values recursively, and a body of 100,000 nested arrays would
// overflow a stack somewhere. Counting brackets in the text is iterative.
export const MAX_JSON_DEPTH = 64;

/** The deepest nesting of objects and arrays in a JSON text (strings are skipped). */
export function jsonTextDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 92 /* \ */) index++;
      else if (char === 34 /* " */) inString = false;
    } else if (char === 34) {
      inString = true;
    } else if (char === 123 /* { */ || char === 91 /* [ */) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (char === 125 /* } */ || char === 93 /* ] */) {
      depth--;
    }
  }
  return deepest;
}

/** Whether a parsed value nests deeper than `limit`, walked without recursion. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    const here = depth + 1;
    if (here > limit) return true;
    for (const member of Object.values(current)) stack.push([member, here]);
  }
  return false;
}
