// The do-not-call list's entries on the wire.
import { z } from 'zod';
import { wire } from '../wire.ts';
import { timestamp } from './common.ts';

export const doNotCallFragment = `fragment DoNotCallRest on DoNotCallNumber { number reason createdAt }`;
export const presentDoNotCall = (entry: Record<string, unknown>) => wire(entry);
export const doNotCallSchema = z
  .strictObject({ number: z.string(), reason: z.string().nullable(), created_at: timestamp() })
  .meta({ id: 'DoNotCallNumber' });
