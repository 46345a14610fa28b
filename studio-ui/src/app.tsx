import { useEffect, useState } from 'preact/hooks';
import type { StudioInfo } from '../../src/studio/api-types.js';
import { api } from './api.js';
import { ApprovalsPage } from './pages/approvals-page.js';
import { ElicitationsPage } from './pages/elicitations-page.js';
import { FleetPage } from './pages/fleet-page.js';
import { ResourcesPage } from './pages/resources-page.js';
import { RunsPage } from './pages/runs-page.js';
import { ServersPage } from './pages/servers-page.js';
import { SignInPage } from './pages/signin-page.js';
import { ToolsPage } from './pages/tools-page.js';
import { useRoute, type Route } from './router.js';
import { isOpenWait } from './studio-store.js';
import { useStudio } from './use-studio.js';

const LABELS: Readonly<Record<Route, string>> = {
  servers: 'Servers',
  tools: 'Tools',
  resources: 'Resources & prompts',
  runs: 'Runs',
  approvals: 'Approvals',
  elicitations: 'Elicitations',
  signin: 'Sign-in',
  fleet: 'Fleet',
};

function Page({ route }: { readonly route: Route }) {
  switch (route) {
    case 'servers':
      return <ServersPage />;
    case 'tools':
      return <ToolsPage />;
    case 'resources':
      return <ResourcesPage />;
    case 'runs':
      return <RunsPage />;
    case 'approvals':
      return <ApprovalsPage />;
    case 'elicitations':
      return <ElicitationsPage />;
    case 'signin':
      return <SignInPage />;
    case 'fleet':
      return <FleetPage />;
  }
}

/** The studio: a header, the navigation with its counters, and the page of the hash route. */
export function App() {
  const route = useRoute();
  const { approvals, elicitations, waits, connected } = useStudio();
  const [info, setInfo] = useState<StudioInfo | undefined>(undefined);
  useEffect(() => {
    api.get<StudioInfo>('/api/info').then(setInfo, () => undefined);
  }, []);
  // what waits for a person: in this studio, and parked runs' open waits in the store
  const open = waits.filter(isOpenWait);
  const counters: Partial<Record<Route, number>> = {
    approvals: approvals.length + open.filter((w) => w.kind === 'approval').length,
    elicitations: elicitations.length + open.filter((w) => w.kind === 'elicitation').length,
  };
  return (
    <div class="shell">
      <header class="header">
        <h1>Muster studio</h1>
        <span class="muted">
          {info ? `v${info.version} · ${info.model ?? 'no model'} · store ${info.store}` : ''}
        </span>
        <span class={connected ? 'live on' : 'live off'} title="live updates">
          {connected ? 'live' : 'offline'}
        </span>
      </header>
      <nav class="nav">
        {(Object.keys(LABELS) as Route[]).map((name) => (
          <a
            key={name}
            href={`#/${name}`}
            class={name === route ? 'active' : ''}
            data-testid={`nav-${name}`}
            aria-current={name === route ? 'page' : undefined}
          >
            {LABELS[name]}
            {name in counters && (
              <span
                class={counters[name] ? 'count pending' : 'count'}
                data-testid={`${name}-count`}
              >
                {counters[name]}
              </span>
            )}
          </a>
        ))}
      </nav>
      <main class="main">
        <Page route={route} />
      </main>
    </div>
  );
}
