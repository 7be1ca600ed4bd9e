// SPEC.md's SIP trunk summary and phone number records.
import { z } from 'zod';
import { SipTrunkDirection } from '../generated/prisma/enums.ts';
import { record, value } from './record.ts';
import { integer } from './values.ts';

export const sipTrunk = record(
  { id: 'SipTrunkSummary' },
  {
    id: value(z.string()),
    name: value(z.string()),
    provider: value(z.string()),
    type: value(z.enum(SipTrunkDirection)),
    is_active: value(z.boolean()),
    max_concurrency: value(integer()),
    phone_count: value(integer()),
  },
);

export const phoneNumber = record(
  { id: 'PhoneNumber' },
  {
    id: value(z.string()),
    number: value(z.string()),
    label: value(z.string()),
    provider: value(z.string()),
    sip_trunk_id: value(z.string()),
    trunk_name: value(z.string()),
    is_verified: value(z.boolean()),
  },
);
