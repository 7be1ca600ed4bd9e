// GraphQL results (camelCase) to SPEC.md's wire shape (snake_case). Only the
// names of the result's own fields change: JSON values (definition, settings,
// config objects read through their `json` field) pass through untouched.
import { snakeCase } from '../domain/names.ts';

type Plain = Record<string, unknown>;

/**
 * Renames the top-level keys of `value`; members named in `nested` (by their
 * GraphQL name) are converted the same way, one level down (objects or lists).
 */
export function wire(value: Plain, nested: string[] = []): Plain {
  const converted: Plain = {};
  for (const key in value) {
    const member = value[key];
    converted[snakeCase(key)] =
      !nested.includes(key) || member === null || typeof member !== 'object'
        ? member
        : Array.isArray(member)
          ? member.map((item) => wire(item as Plain))
          : wire(member as Plain);
  }
  return converted;
}

/** Replaces `{ json: value }` selections (typed config objects) by their JSON value. */
export function unwrapJson(value: Plain, members: string[]): Plain {
  const copy = { ...value };
  for (const member of members) {
    const selected = copy[member] as { json?: unknown } | null | undefined;
    copy[member] = selected ? selected.json : null;
  }
  return copy;
}
