import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { StreamEvent } from '../client/types.js';
import { client, errorText, reportStreamState } from './api.js';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  /** Loads again (the data shown stays until the new answer arrives). */
  reload(): void;
}

/** Data from the API, loaded when `key` changes; a late answer for an old key is dropped. */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  // The state names the key it was loaded for: in the render right after the key changes (before the
  // effect below runs) the previous key's data must not be shown as if it were this key's.
  const [state, setState] = useState<{ key: string; data?: T; error?: string; loading: boolean }>({ key, loading: true });
  const generation = useRef(0);
  const loader = useRef(load);
  loader.current = load;
  const currentKey = useRef(key);
  currentKey.current = key;
  const reload = useCallback(() => {
    const mine = ++generation.current;
    const loadingKey = currentKey.current;
    setState((previous) => ({ ...previous, loading: true }));
    loader.current().then(
      (data) => mine === generation.current && setState({ key: loadingKey, data, loading: false }),
      (error: unknown) =>
        mine === generation.current && setState((previous) => ({ key: loadingKey, data: previous.data, error: errorText(error), loading: false })),
    );
  }, []);
  useEffect(() => {
    setState({ key, loading: true });
    reload();
  }, [key, reload]);
  if (state.key !== key) return { data: undefined, error: undefined, loading: true, reload };
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

export interface StreamOptions {
  /** Only this run's events. */
  runId?: string;
  /** The stream opened, first or again: load what is shown anew (FollowOptions.onOpen). */
  onOpen?: () => void;
}

/**
 * Follows a stream (`__dashboard__` or a conversation id) while the component is shown. The
 * browser's EventSource reconnects with Last-Event-ID by itself; `onOpen` covers what no replay
 * carries (a page that had received nothing yet, the moment between its load and the stream).
 *
 * A hidden tab lets its stream go and follows it again (loading anew) when shown: a browser keeps
 * at most six connections to one server over HTTP/1.1, and each open stream holds one for good, so
 * a seventh dashboard tab would otherwise wait forever for the page itself.
 */
export function useStream(stream: string | undefined, onEvent: (event: StreamEvent) => void, options: StreamOptions = {}): void {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const opened = useRef(options.onOpen);
  opened.current = options.onOpen;
  const { runId } = options;
  useEffect(() => {
    if (stream === undefined) return;
    let current: { closed: boolean; feed?: { close(): void } } | undefined;
    const follow = () => {
      if (current && !current.closed) return;
      const mine: { closed: boolean; feed?: { close(): void } } = { closed: false };
      current = mine;
      client.events
        .follow({
          stream,
          ...(runId === undefined ? {} : { runId }),
          onEvent: (event) => handler.current(event),
          onOpen: () => opened.current?.(),
          onLost: () => reportStreamState('lost'),
        })
        .then(
          (feed) => (mine.closed ? feed.close() : (mine.feed = feed)),
          () => reportStreamState('lost'),
        );
    };
    const stop = () => {
      if (!current) return;
      current.closed = true;
      current.feed?.close();
    };
    const onVisibility = () => (document.hidden ? stop() : follow());
    if (!document.hidden) follow();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      stop();
    };
  }, [stream, runId]);
}

/**
 * Calls `fn` once after a burst of calls has settled: a run emits many events in a few
 * milliseconds, and one reload of the list answers them all. A burst that never settles (a chain
 * of quick nodes, many runs at once) still gets a call every `maxWaitMs`, so the page keeps up.
 */
export function useDebounced(fn: () => void, ms = 150, maxWaitMs = 1000): () => void {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const burstStart = useRef<number | undefined>(undefined);
  const latest = useRef(fn);
  latest.current = fn;
  useEffect(() => () => clearTimeout(timer.current), []);
  return useCallback(() => {
    clearTimeout(timer.current);
    const now = Date.now();
    burstStart.current ??= now;
    const wait = Math.max(0, Math.min(ms, burstStart.current + maxWaitMs - now));
    timer.current = setTimeout(() => {
      burstStart.current = undefined;
      latest.current();
    }, wait);
  }, [ms, maxWaitMs]);
}

/** The current time, ticking every `ms` while `active` (running durations and timeline bars grow). */
export function useNow(active: boolean, ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [active, ms]);
  return active ? now : Date.now();
}

/** The `#/…` route: path segments and query. Links are plain `href="#/runs/x"`, so keyboard and history work. */
export interface Route {
  path: string[];
  query: URLSearchParams;
}

function parseHash(): Route {
  const hash = location.hash.replace(/^#\/?/, '');
  const [path = '', query = ''] = hash.split('?');
  return { path: path.split('/').filter(Boolean).map(decodeSegment), query: new URLSearchParams(query) };
}

/** A link's segment as typed: a malformed escape (`#/runs/%E0%A4%A`) stays as it is instead of breaking the page. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(parseHash);
  useEffect(() => {
    const update = () => setRoute(parseHash());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

export function navigate(hash: string): void {
  location.hash = hash;
}
