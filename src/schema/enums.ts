import { AgentType, BatchStatus, RunStatus } from '../generated/prisma/enums.ts';
import { runSorts } from '../domain/runs.ts';
import { builder } from './builder.ts';

export const RunStatusEnum = builder.enumType(RunStatus, { name: 'RunStatus' });
export const BatchStatusEnum = builder.enumType(BatchStatus, { name: 'BatchStatus' });
export const AgentTypeEnum = builder.enumType(AgentType, { name: 'AgentType' });

export const RunOrderEnum = builder.enumType('RunOrder', {
  description: 'How runs are sorted. Runs not started yet sort after every started one.',
  values: Object.fromEntries(runSorts.map((sort) => [sort.toUpperCase(), { value: sort }])) as Record<
    Uppercase<(typeof runSorts)[number]>,
    { value: (typeof runSorts)[number] }
  >,
});
