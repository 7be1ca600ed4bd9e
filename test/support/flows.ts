// Builds workflows, prospects and batches through the GraphQL API, for tests
// that need runs to exist.
import { graphqlCalls } from './graphql.ts';
import type { TestServer } from './server.ts';

export function flows(server: TestServer, apiKey: string) {
  const { ok } = graphqlCalls(
    () => server,
    () => apiKey,
  );
  let agentId: string | undefined;
  const agent = async (input: Record<string, unknown> = {}) => {
    const data = await ok(`mutation($input: AgentCreateInput!) { createAgent(input: $input) { id } }`, {
      input: { name: 'Caller', ...input },
    });
    return data.createAgent.id as string;
  };
  return {
    ok,
    agent,
    /** A workflow of these steps; a call step that names no agent calls with one agent made for these flows. */
    async workflow(steps: Record<string, unknown>[]) {
      const needsAgent = steps.some((step) => step.type === 'call' && !step.agent_id);
      if (needsAgent) agentId ??= await agent();
      const definition = {
        steps: steps.map((step) => (step.type === 'call' && !step.agent_id ? { ...step, agent_id: agentId } : step)),
      };
      const data = await ok(`mutation($input: WorkflowCreateInput!) { createWorkflow(input: $input) { id } }`, {
        input: { name: 'Engine test', definition },
      });
      return data.createWorkflow.id as string;
    },
    /** `count` prospects with distinct US numbers (+1 415 …), or the fields `extra` gives each. */
    async prospects(count: number, extra: (index: number) => Record<string, unknown> = () => ({})) {
      const ids: string[] = [];
      for (let start = 0; start < count; start += 10_000) {
        const prospects = Array.from({ length: Math.min(10_000, count - start) }, (_, offset) => ({
          firstName: `P${start + offset}`,
          phone: `+1415${String(start + offset).padStart(7, '0')}`,
          ...extra(start + offset),
        }));
        const data = await ok(`mutation($input: ProspectsCreateInput!) { createProspects(input: $input) { id } }`, {
          input: { prospects },
        });
        ids.push(...data.createProspects.map((prospect: { id: string }) => prospect.id));
      }
      return ids;
    },
    async batch(workflowId: string, prospectIds: string[], extra: Record<string, unknown> = {}) {
      const data = await ok(
        `mutation($w: ID!, $input: BatchCreateInput!) { createBatch(workflowId: $w, input: $input) { id } }`,
        {
          w: workflowId,
          input: { prospectIds, ...extra },
        },
      );
      return data.createBatch.id as string;
    },
    setStatus: (batchId: string, status: string) =>
      ok(`mutation($id: ID!, $s: BatchStatus!) { updateBatchStatus(id: $id, status: $s) { status } }`, {
        id: batchId,
        s: status,
      }),
  };
}

/** Polls `check` every `intervalMs` until it returns a value that is not undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 20_000,
  what = 'condition',
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
