// Reads the member names out of zod schemas, for tests that generate requests from the route table.

/** Every member name a zod schema declares, at any depth. */
export function memberNames(schema: unknown, seen = new Set<unknown>()): string[] {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return [];
  seen.add(schema);
  const node = schema as { shape?: Record<string, unknown>; _zod?: { def?: Record<string, unknown> } };
  const def = node._zod?.def ?? {};
  const names: string[] = [];
  if (def.type === 'object' && node.shape) {
    for (const [name, member] of Object.entries(node.shape)) names.push(name, ...memberNames(member, seen));
  }
  for (const key of ['innerType', 'in', 'out', 'element', 'valueType', 'left', 'right'])
    names.push(...memberNames(def[key], seen));
  for (const option of (def.options as unknown[] | undefined) ?? []) names.push(...memberNames(option, seen));
  return [...new Set(names)];
}
