// The zod pieces of values every record and every input share: integers
// within GraphQL's 32-bit Int, fractions, and the wire's timestamps and free
// JSON values.
import { z } from 'zod';

/** GraphQL's Int is 32-bit: integer members stay within it on every interface. */
export const INT_MAX = 2_147_483_647;

/** An integer input member, within [min, max] (GraphQL's Int unless narrower). */
export const int = (min = -INT_MAX, max = INT_MAX) => z.number().int().min(min).max(max);
export const fraction = () => z.number().min(0).max(1);

/** An integer a record shows. */
export const integer = () => z.number().int();
/** An instant a record shows: RFC 3339 UTC with milliseconds (DECISIONS.md). */
export const instant = () => z.string().meta({ format: 'date-time', example: '2026-11-21T04:09:00.000Z' });
/** A free JSON value a record shows. */
export const jsonValue = () => z.unknown().meta({ description: 'A JSON value' });
