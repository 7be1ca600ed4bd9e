// SPEC.md's SIP trunk summary and phone number records.
import { z } from 'zod';
import { SipTrunkDirection } from '../generated/prisma/enums.ts';
import { record } from './record.ts';
import { integer } from './values.ts';

export const sipTrunk = record(
  { id: 'SipTrunkSummary' },
  {
    id: z.string(),
    name: z.string(),
    provider: z.string(),
    type: z.enum(SipTrunkDirection),
    is_active: z.boolean(),
    max_concurrency: integer(),
    phone_count: integer(),
  },
);

export const phoneNumber = record(
  { id: 'PhoneNumber' },
  {
    id: z.string(),
    number: z.string(),
    label: z.string(),
    provider: z.string(),
    sip_trunk_id: z.string(),
    trunk_name: z.string(),
    is_verified: z.boolean(),
  },
);
