// What the console's key may do (`currentApiKey { scopes }`, read with the
// organization), and the gateway's own table of what each field needs
// (src/key-scopes.ts): a control whose mutation the key may not run is
// disabled, saying which scope it lacks, rather than failing when pressed.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { allows, FIELD_SCOPES } from '../key-scopes.ts';

/** The key's scopes; everything until they are known (the gateway refuses what the key may not do anyway). */
export const KeyScopes = createContext<readonly string[]>(['*']);

/** Why the key may not use `field` (`Mutation.updateAgent`): the scope it lacks; null when it may. */
export function useMissingScope(field: string): string | null {
  const held = useContext(KeyScopes);
  const needs = FIELD_SCOPES[field] ?? [];
  return allows(held, needs) ? null : `This API key lacks the ${needs.join(' or ')} scope`;
}
