import { useEffect, useState } from 'preact/hooks';
import { onStreamState } from './api.js';
import { useRoute, type Route } from './hooks.js';
import { RunsView } from './views/runs.js';
import { RunDetailView } from './views/run-detail.js';
import { WorkflowsView } from './views/workflows.js';
import { ConversationsView } from './views/conversations.js';
import { BenchmarksView } from './views/benchmarks.js';
import { WorkspacesView } from './views/workspaces.js';

const SECTIONS = [
  { path: 'runs', label: 'Runs' },
  { path: 'workflows', label: 'Workflows' },
  { path: 'conversations', label: 'Conversations' },
  { path: 'benchmarks', label: 'Benchmarks' },
  { path: 'workspaces', label: 'Workspaces' },
] as const;

function View({ route }: { route: Route }) {
  const [section = 'runs', id] = route.path;
  // Keyed by the id: another run's page starts afresh (its streamed events, its chosen node)
  // instead of mixing in those of the run shown before.
  switch (section) {
    case 'runs':
      return id ? <RunDetailView key={id} runId={id} /> : <RunsView query={route.query} />;
    case 'workflows':
      return <WorkflowsView key={`${id ?? ''} ${route.query.get('workspace') ?? ''}`} name={id} workspace={route.query.get('workspace') ?? undefined} />;
    case 'conversations':
      return <ConversationsView key={id} conversationId={id} />;
    case 'benchmarks':
      return <BenchmarksView workflow={id} query={route.query} />;
    case 'workspaces':
      return <WorkspacesView workspaceId={id} />;
    default:
      return (
        <p class="note error" role="alert">
          Nothing here. <a href="#/runs">Back to the runs.</a>
        </p>
      );
  }
}

/** Shows when the live streams are down; they reconnect by themselves. */
function ConnectionState() {
  const [state, setState] = useState<string>('open');
  useEffect(() => onStreamState(setState), []);
  if (state === 'open')
    return (
      <span class="live" title="Live updates are on">
        live
      </span>
    );
  return (
    <span class="live off" role="status">
      {state === 'lost' ? 'disconnected — reload the page' : 'reconnecting…'}
    </span>
  );
}

export function App() {
  const route = useRoute();
  const section = route.path[0] ?? 'runs';
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="#/runs">
          svc
        </a>
        <nav aria-label="Sections">
          {SECTIONS.map((item) => (
            <a key={item.path} href={`#/${item.path}`} aria-current={section === item.path ? 'page' : undefined}>
              {item.label}
            </a>
          ))}
        </nav>
        <ConnectionState />
      </header>
      <main id="main" tabIndex={-1}>
        <View route={route} />
      </main>
    </>
  );
}
