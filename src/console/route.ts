// Pages are addressed by the URL's hash (#/batches/bat_…), so the gateway
// serves one page at /dashboard and links, reloads and the back button work.
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { page: 'batches' }
  | { page: 'batch'; id: string }
  | { page: 'run'; id: string }
  | { page: 'agents' }
  | { page: 'agent'; id: string }
  | { page: 'calls' }
  | { page: 'insights' }
  | { page: 'numbers' }
  | { page: 'webhooks' }
  | { page: 'audit' };

function parseRoute(hash: string): Route {
  const [page, id] = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  if (page === 'batches' && id) return { page: 'batch', id };
  if (page === 'runs' && id) return { page: 'run', id };
  if (page === 'agents' && id) return { page: 'agent', id };
  if (
    page === 'agents' ||
    page === 'calls' ||
    page === 'insights' ||
    page === 'numbers' ||
    page === 'webhooks' ||
    page === 'audit'
  )
    return { page };
  return { page: 'batches' };
}

const pathOf: Record<Route['page'], string> = {
  batches: 'batches',
  batch: 'batches',
  run: 'runs',
  agents: 'agents',
  agent: 'agents',
  calls: 'calls',
  insights: 'insights',
  numbers: 'numbers',
  webhooks: 'webhooks',
  audit: 'audit',
};

export const hrefOf = (route: Route): string =>
  'id' in route ? `#/${pathOf[route.page]}/${encodeURIComponent(route.id)}` : `#/${pathOf[route.page]}`;

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}
