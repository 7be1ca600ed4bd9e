import { z } from 'zod';

/** RFC 3339 UTC with milliseconds (DECISIONS.md). */
export const timestamp = () => z.string().meta({ format: 'date-time', example: '2026-11-21T04:09:00.000Z' });
export const json = () => z.unknown().meta({ description: 'A JSON value' });
export const int = () => z.number().int();
