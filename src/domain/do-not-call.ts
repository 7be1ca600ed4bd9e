// An organization's do-not-call list: numbers no run may dial.
import { z } from 'zod';
import { notFound } from './errors.ts';
import { limits } from './limits.ts';
import type { Scope } from './scope.ts';
import { e164 } from './telephony.ts';

export const doNotCallAdd = z
  .strictObject({
    numbers: z
      .array(e164)
      .min(1)
      .max(limits.bulkItems)
      .meta({ description: 'E.164 numbers; ones already listed stay once;' }),
    reason: z
      .string()
      .max(500)
      .optional()
      .meta({ description: 'why they are listed; given, it replaces the reason of numbers already listed;' }),
  })
  .meta({ id: 'DoNotCallAdd', description: "Numbers to put on the organization's do-not-call list." });
type DoNotCallAdd = z.output<typeof doNotCallAdd>;

/**
 * Lists the numbers; adding a listed number again is not an error (it stays
 * once, with the new reason if one is given). Answers how many distinct
 * numbers the request named.
 */
export async function addDoNotCallNumbers(scope: Scope, { numbers, reason }: DoNotCallAdd) {
  const unique = [...new Set(numbers)];
  const { prisma } = scope;
  await prisma.$transaction([
    prisma.doNotCallNumber.createMany({
      data: unique.map((number) => ({ organizationId: scope.viewer.organizationId, number, reason })),
      skipDuplicates: true,
    }),
    ...(reason === undefined
      ? []
      : [prisma.doNotCallNumber.updateMany({ where: { number: { in: unique } }, data: { reason } })]),
  ]);
  return { count: unique.length };
}

/** Takes a number off the list and returns it as it was listed; 404 when it is not listed. */
export async function removeDoNotCallNumber(scope: Scope, number: string) {
  // A number that is not E.164 cannot be listed: it is missing, like any other unlisted number.
  if (!e164.safeParse(number).success) throw notFound('do-not-call number');
  return scope.prisma.$transaction(async (tx) => {
    const listed = await tx.doNotCallNumber.findFirst({ where: { number } });
    // The delete's count, not the read, decides: of two concurrent removals, one gets the 404.
    const { count } = await tx.doNotCallNumber.deleteMany({ where: { number } });
    if (!listed || count === 0) throw notFound('do-not-call number');
    return listed;
  });
}
