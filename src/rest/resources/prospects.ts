// SPEC.md's prospect, prospect list and tag records: the GraphQL selection
// each is read with, how it maps to the wire, and its schema.
import { z } from 'zod';
import { wire } from '../wire.ts';
import { int, timestamp } from './common.ts';

export const tagFragment = `fragment TagRest on Tag { id name }`;
export const tagSchema = z.strictObject({ id: z.string(), name: z.string() }).meta({ id: 'Tag' });

export const prospectFragment = `fragment ProspectRest on Prospect {
  id firstName lastName email phone timezone createdAt updatedAt tags { ...TagRest } }
  ${tagFragment}`;
export const presentProspect = (prospect: Record<string, unknown>) => wire(prospect, ['tags']);
export const prospectSchema = z
  .strictObject({
    id: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    email: z.string(),
    phone: z.string(),
    timezone: z.string().nullable(),
    created_at: timestamp(),
    updated_at: timestamp(),
    tags: z.array(tagSchema),
  })
  .meta({ id: 'Prospect' });

export const prospectListSchema = z
  .strictObject({ id: z.string(), name: z.string(), prospect_count: int() })
  .meta({ id: 'ProspectList' });
