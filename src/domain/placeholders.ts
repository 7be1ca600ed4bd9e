// `{{name}}` placeholders, the syntax of the pre-call webhook's body template
// (src/engine/precall-webhook.ts) and of the prompt template the agent worker
// fills (worker/src/prompt.ts): one definition for both. Dependency-free, so
// the worker imports it without the gateway's packages.

const placeholder = /\{\{\s*([\w.]+)\s*\}\}/g;
const wholePlaceholder = /^\{\{\s*([\w.]+)\s*\}\}$/;

export type PlaceholderValues = Record<string, string | number>;

/** `text` with each placeholder named in `values` replaced by its value; unknown placeholders stay as written. */
export const fillPlaceholders = (text: string, values: PlaceholderValues): string =>
  text.replace(placeholder, (written, name: string) => (name in values ? String(values[name]) : written));

/** The value `text` names when it is one known placeholder and nothing else (its type kept); undefined otherwise. */
export function wholePlaceholderValue(text: string, values: PlaceholderValues): string | number | undefined {
  const name = wholePlaceholder.exec(text)?.[1];
  return name !== undefined && name in values ? values[name] : undefined;
}
