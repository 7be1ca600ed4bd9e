// Members of the agent's configuration that no plugin of LiveKit Agents takes:
// the mapping lists them (never drops them silently) and the worker logs the
// list once per call.

export interface UnhonouredMember {
  /** Its path in the agent, e.g. `llm_config.fallbacks[0].top_k`. */
  member: string;
  reason: string;
}

export type Unhonoured = UnhonouredMember[];

/**
 * A plugin's options from a configuration object: each member with an entry in
 * `table` becomes the options the entry returns; a member without one is
 * unhonoured (`skip`: members the caller maps itself).
 */
export function optionsFrom<O>(
  config: object,
  table: OptionTable<O>,
  path: string,
  plugin: string,
  unhonoured: Unhonoured,
  skip: readonly string[] = [],
): Partial<O> {
  let options: Partial<O> = {};
  for (const [member, value] of Object.entries(config)) {
    if (value === undefined || skip.includes(member)) continue;
    const entry = table[member];
    const taken = entry?.(value as never, config as Record<string, unknown>);
    if (taken === undefined) {
      const reason = entry ? `${plugin} cannot take ${JSON.stringify(value)}` : `${plugin} has no such option`;
      unhonoured.push({ member: `${path}.${member}`, reason });
      continue;
    }
    options = merged(options, taken);
  }
  return options;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `options` with `taken` added; an object both hold (voice settings, extra request members) gets the members of both. */
function merged<O>(options: Partial<O>, taken: Partial<O>): Partial<O> {
  const result: Record<string, unknown> = { ...options };
  for (const [key, value] of Object.entries(taken)) {
    const held = result[key];
    result[key] = isRecord(held) && isRecord(value) ? { ...held, ...value } : value;
  }
  return result as Partial<O>;
}

/** How a member becomes a plugin's options; undefined: this value cannot be honoured. */
export type OptionTable<O> = Record<string, (value: never, config: Record<string, unknown>) => Partial<O> | undefined>;

/** A configuration and its fallbacks, depth first (the order they are tried in), each with its path in the agent. */
export function withFallbacks<C extends { fallbacks?: C[] }>(config: C, path: string): { config: C; path: string }[] {
  return [
    { config, path },
    ...(config.fallbacks ?? []).flatMap((fallback, index) => withFallbacks(fallback, `${path}.fallbacks[${index}]`)),
  ];
}
