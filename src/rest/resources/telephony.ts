// SPEC.md's SIP trunk summary and phone number records.
import { z } from 'zod';
import { wire } from '../wire.ts';
import { int } from './common.ts';

export const trunkFragment = `fragment TrunkRest on SipTrunk { id name provider type isActive maxConcurrency phoneCount }`;
export const trunkSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    provider: z.string(),
    type: z.string(),
    is_active: z.boolean(),
    max_concurrency: int(),
    phone_count: int(),
  })
  .meta({ id: 'SipTrunkSummary' });

export const phoneNumberFragment = `fragment PhoneNumberRest on PhoneNumber { id number label provider sipTrunkId trunkName isVerified }`;
export const phoneNumberSchema = z
  .strictObject({
    id: z.string(),
    number: z.string(),
    label: z.string(),
    provider: z.string(),
    sip_trunk_id: z.string(),
    trunk_name: z.string(),
    is_verified: z.boolean(),
  })
  .meta({ id: 'PhoneNumber' });

export const present = (record: Record<string, unknown>) => wire(record);
