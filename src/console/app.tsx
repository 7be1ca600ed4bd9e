// The console's frame: the API key (kept in this tab's sessionStorage only),
// the organization it opens, the navigation, and the page of the URL's hash.
import { Provider, useQuery } from '@urql/preact';
import { useMemo, useState } from 'preact/hooks';
import { ConsoleOrganization } from '../console-operations/console-operations.ts';
import { forgetApiKey, storeApiKey, storedApiKey } from './api-key.ts';
import { createConsoleClient, documentOf } from './client.ts';
import { AgentPage } from './pages/agent.tsx';
import { AgentsPage } from './pages/agents.tsx';
import { AuditPage } from './pages/audit.tsx';
import { BatchPage } from './pages/batch.tsx';
import { BatchesPage } from './pages/batches.tsx';
import { CallsPage } from './pages/calls.tsx';
import { InsightsPage } from './pages/insights.tsx';
import { NumbersPage } from './pages/numbers.tsx';
import { RunPage } from './pages/run.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { hrefOf, type Route, useRoute } from './route.ts';
import { KeyScopes } from './scopes.ts';
import { ErrorNote, errorMessage, Loading } from './ui.tsx';

const SECTIONS = [
  { page: 'batches', label: 'Batches' },
  { page: 'agents', label: 'Agents' },
  { page: 'calls', label: 'Calls' },
  { page: 'insights', label: 'Insights' },
  { page: 'numbers', label: 'Numbers' },
  { page: 'webhooks', label: 'Webhooks' },
  { page: 'audit', label: 'Audit' },
] as const;

export function App() {
  const [apiKey, setApiKey] = useState(storedApiKey);
  const client = useMemo(() => (apiKey ? createConsoleClient(apiKey) : null), [apiKey]);
  const forget = () => {
    forgetApiKey();
    setApiKey(null);
  };
  if (!client) {
    return (
      <KeyForm
        onKey={(key) => {
          storeApiKey(key);
          setApiKey(key);
        }}
      />
    );
  }
  return (
    <Provider value={client}>
      <Console onForget={forget} />
    </Provider>
  );
}

function KeyForm({ onKey, refused }: { onKey: (key: string) => void; refused?: string }) {
  const [key, setKey] = useState('');
  return (
    <main class="connect">
      <form
        class="card connect-card"
        id="key-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (key.trim()) onKey(key.trim());
        }}
      >
        <h1>Agent gateway console</h1>
        <p>Batches, agents and insights of your organization, live.</p>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="off"
          placeholder="gwk_…"
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
        />
        {refused && (
          <p class="field-error" role="alert">
            {refused}
          </p>
        )}
        <button type="submit" class="primary">
          Connect
        </button>
        <p class="muted small">The key stays in this browser tab (session storage) and goes only to this gateway.</p>
      </form>
    </main>
  );
}

function Console({ onForget }: { onForget: () => void }) {
  const route = useRoute();
  const [organization] = useQuery({ query: documentOf(ConsoleOrganization) });
  const refused = organization.error?.response?.status === 401;
  if (refused) {
    return (
      <KeyForm
        refused={`This key was refused: ${errorMessage(organization.error!)}`}
        onKey={(key) => {
          storeApiKey(key);
          location.reload();
        }}
      />
    );
  }
  const active =
    route.page === 'batch' || route.page === 'run' ? 'batches' : route.page === 'agent' ? 'agents' : route.page;
  return (
    <div class="shell">
      <header class="topbar">
        <a class="brand" href={hrefOf({ page: 'batches' })}>
          <span class="logo" aria-hidden="true">
            ◆
          </span>{' '}
          Agent gateway
        </a>
        <nav aria-label="Console">
          {SECTIONS.map((section) => (
            <a
              key={section.page}
              href={hrefOf({ page: section.page })}
              aria-current={active === section.page ? 'page' : undefined}
            >
              {section.label}
            </a>
          ))}
        </nav>
        <div class="account">
          <span id="status" class="organization" role="status">
            {organization.data
              ? `Connected to ${organization.data.organization.name}`
              : organization.error
                ? 'Not connected'
                : 'Connecting…'}
          </span>
          <button type="button" id="forget" class="link" onClick={onForget}>
            Forget key
          </button>
        </div>
      </header>
      <main id="main">
        {organization.error ? (
          <ErrorNote error={organization.error} what="the organization" />
        ) : !organization.data ? (
          <Loading what="the organization" />
        ) : (
          <KeyScopes.Provider value={organization.data.currentApiKey.scopes}>
            <Page route={route} />
          </KeyScopes.Provider>
        )}
      </main>
    </div>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'batches':
      return <BatchesPage />;
    case 'batch':
      return <BatchPage key={route.id} id={route.id} />;
    case 'run':
      return <RunPage key={route.id} id={route.id} />;
    case 'agents':
      return <AgentsPage />;
    case 'agent':
      return <AgentPage key={route.id} id={route.id} />;
    case 'calls':
      return <CallsPage />;
    case 'insights':
      return <InsightsPage />;
    case 'numbers':
      return <NumbersPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'audit':
      return <AuditPage />;
  }
}
