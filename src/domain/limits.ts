// Sizes of bulk inputs (DECISIONS.md): the domain's schemas are built with
// them when they load, so they are read then, from the environment through
// src/config.ts (which stops the process on a value that is not a positive integer).
import { loadBulkLimits } from '../config.ts';

export const limits = loadBulkLimits();
