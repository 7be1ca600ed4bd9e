// SPEC.md's SIP trunk summary and phone number records.
import { z } from 'zod';
import { SipTrunkDirection } from '../generated/prisma/enums.ts';
import { phoneNumberHealth } from './contact-settings.ts';
import { jsonObject, record } from './record.ts';
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

/** A number with its health (GET /phone-numbers/{id}, its rest and restore). */
export const phoneNumberDetail = phoneNumber.extend(
  { id: 'PhoneNumberDetail' },
  { health: jsonObject(phoneNumberHealth) },
);
