// Agents: the organization's agents with their models at a glance.
import { useQuery } from '@urql/preact';
import { ConsoleAgents } from '../../console-operations/console-operations.ts';
import { documentOf } from '../client.ts';
import { count, dateTime, plural } from '../format.ts';
import { hrefOf } from '../route.ts';
import { Empty, ErrorNote, Loading } from '../ui.tsx';

const modelOf = (config: { provider: string; model: string | null } | null) =>
  config ? [config.provider, config.model].filter(Boolean).join(' · ') : '—';

export function AgentsPage() {
  const [result, reexecute] = useQuery({ query: documentOf(ConsoleAgents) });
  const agents = result.data?.agents;
  return (
    <section class="page agents-page" aria-labelledby="agents-title">
      <header class="page-header">
        <div>
          <h1 id="agents-title">Agents</h1>
          <p class="subtitle">{agents ? `${count(agents.totalCount)} in all` : ' '}</p>
        </div>
      </header>
      {result.error && !agents ? (
        <ErrorNote error={result.error} what="the agents" retry={() => reexecute({ requestPolicy: 'network-only' })} />
      ) : !agents ? (
        <Loading what="agents" />
      ) : agents.nodes.length === 0 ? (
        <Empty>No agents yet: create one with the createAgent mutation or POST /org/{'{org_id}'}/agents.</Empty>
      ) : (
        <div class="card flush">
          <table class="agents-table">
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Language model</th>
                <th scope="col">Voice</th>
                <th scope="col">Transcriber</th>
                <th scope="col">Tools</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {agents.nodes.map((agent) => (
                <tr key={agent.id} data-agent-id={agent.id}>
                  <td data-label="Agent">
                    <a href={hrefOf({ page: 'agent', id: agent.id })} class="agent-name">
                      {agent.name}
                    </a>{' '}
                    <span class="tag">{agent.type}</span>
                  </td>
                  <td data-label="Language model">{modelOf(agent.llmConfig)}</td>
                  <td data-label="Voice">{modelOf(agent.voiceConfig)}</td>
                  <td data-label="Transcriber">{modelOf(agent.transcriberConfig)}</td>
                  <td data-label="Tools">{plural(agent.tools.length, 'tool')}</td>
                  <td data-label="Updated">{dateTime(agent.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
