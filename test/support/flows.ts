// Builds workflows, prospects and batches through the GraphQL API, for tests
// that need runs to exist.
import type { TestServer } from './server.ts';

export function flows(server: TestServer, apiKey: string) {
  const ok = async (query: string, variables?: Record<string, unknown>) => {
    const { body } = await server.graphql(apiKey, query, variables);
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  return {
    ok,
    async workflow(steps: Record<string, unknown>[]) {
      const data = await ok(`mutation($input: WorkflowCreateInput!) { createWorkflow(input: $input) { id } }`, {
        input: { name: 'Engine test', definition: { steps } },
      });
      return data.createWorkflow.id as string;
    },
    async prospects(count: number) {
      const ids: string[] = [];
      for (let start = 0; start < count; start += 10_000) {
        const prospects = Array.from({ length: Math.min(10_000, count - start) }, (_, index) => ({ firstName: `P${start + index}` }));
        const data = await ok(`mutation($input: ProspectsCreateInput!) { createProspects(input: $input) { id } }`, { input: { prospects } });
        ids.push(...data.createProspects.map((prospect: { id: string }) => prospect.id));
      }
      return ids;
    },
    async batch(workflowId: string, prospectIds: string[], extra: Record<string, unknown> = {}) {
      const data = await ok(`mutation($w: ID!, $input: BatchCreateInput!) { createBatch(workflowId: $w, input: $input) { id } }`, {
        w: workflowId,
        input: { prospectIds, ...extra },
      });
      return data.createBatch.id as string;
    },
    setStatus: (batchId: string, status: string) =>
      ok(`mutation($id: ID!, $s: BatchStatus!) { updateBatchStatus(id: $id, status: $s) { status } }`, { id: batchId, s: status }),
  };
}

/** Polls `check` until it returns a value that is not undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
