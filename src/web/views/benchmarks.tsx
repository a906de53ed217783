import { useEffect, useState } from 'preact/hooks';
import type { Comparison } from '../../client/types.js';
import { client, errorText } from '../api.js';
import { Bar } from '../components/bar.js';
import { ErrorNote } from '../components/status.js';
import { formatCost, formatDuration, formatTime } from '../format.js';
import { navigate, useLoad } from '../hooks.js';

function WorkflowBenchmark({ workflow }: { workflow: string }) {
  const bench = useLoad(() => client.bench.workflow({ workflow }), workflow);
  if (!bench.data) return bench.error ? <ErrorNote error={bench.error} /> : <p class="note">Loading…</p>;
  const { summary, nodes } = bench.data;
  const scale = Math.max(1, ...nodes.map((node) => node.p95Ms));
  return (
    <div data-benchmark={workflow}>
      <h2>{workflow}</h2>
      <p>
        {summary.runs} runs · p50 {formatDuration(summary.p50Ms)} · p95 {formatDuration(summary.p95Ms)} · p99 {formatDuration(summary.p99Ms)} ·{' '}
        {formatCost(summary.usd)} in all
      </p>
      {nodes.length === 0 ? (
        <p class="note">No finished runs of this workflow yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="bench">
            <thead>
              <tr>
                <th scope="col">Node</th>
                <th scope="col">p50</th>
                <th scope="col">p95</th>
                <th scope="col" class="bar-col">
                  p50 / p95
                </th>
                <th scope="col">Runs</th>
                <th scope="col">Cost</th>
              </tr>
            </thead>
            <tbody>
              {nodes.map((node) => (
                <tr key={node.stepName} data-node-id={node.stepName}>
                  <td class="mono">{node.stepName}</td>
                  <td>{formatDuration(node.p50Ms)}</td>
                  <td>{formatDuration(node.p95Ms)}</td>
                  <td class="bar-col">
                    <Bar value={node.p50Ms} max={scale} label={`p50 ${formatDuration(node.p50Ms)}`} />
                    <Bar value={node.p95Ms} max={scale} kind="p95" label={`p95 ${formatDuration(node.p95Ms)}`} />
                  </td>
                  <td>{node.totalRuns}</td>
                  <td>{node.runsWithCost > 0 ? formatCost(node.totalCostUsd) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function CompareRuns({ workflow, a, b }: { workflow: string | undefined; a: string; b: string }) {
  const [runA, setRunA] = useState(a);
  const [runB, setRunB] = useState(b);
  const [result, setResult] = useState<Comparison | undefined>(undefined);
  // Finished runs to pick from (of the workflow shown, if one is).
  const recent = useLoad(() => client.runs.list({ status: 'completed,failed', limit: 50, ...(workflow ? { workflow } : {}) }), `recent:${workflow ?? ''}`);
  const [error, setError] = useState<string | undefined>(undefined);
  const compare = async (x: string, y: string) => {
    setError(undefined);
    try {
      setResult(await client.bench.compare(x, y));
    } catch (e) {
      setResult(undefined);
      setError(errorText(e));
    }
  };
  // The pair in the address (#/benchmarks?a=…&b=…) is compared on arrival, so a comparison can be linked.
  useEffect(() => {
    setRunA(a);
    setRunB(b);
    if (a && b) void compare(a, b);
  }, [a, b]);
  const scale = Math.max(1, ...(result?.nodes ?? []).flatMap((n) => [n.runAMs ?? 0, n.runBMs ?? 0]));
  return (
    <div class="compare">
      <h2>Compare two runs</h2>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          const base = workflow ? `#/benchmarks/${encodeURIComponent(workflow)}` : '#/benchmarks';
          navigate(`${base}?a=${encodeURIComponent(runA.trim())}&b=${encodeURIComponent(runB.trim())}`);
        }}
      >
        <label>
          Run A <input name="runA" class="mono" list="recent-runs" value={runA} onInput={(e) => setRunA(e.currentTarget.value)} required />
        </label>
        <label>
          Run B <input name="runB" class="mono" list="recent-runs" value={runB} onInput={(e) => setRunB(e.currentTarget.value)} required />
        </label>
        <datalist id="recent-runs">
          {recent.data?.runs.map((run) => (
            <option key={run.id} value={run.id}>
              {run.workflow} · {run.status} · {formatTime(run.finishedAt ?? run.createdAt)}
            </option>
          ))}
        </datalist>
        <button type="submit">Compare</button>
      </form>
      <ErrorNote error={error} />
      {result ? (
        <div class="table-wrap">
          <table class="bench" data-compare={`${a}|${b}`}>
            <thead>
              <tr>
                <th scope="col">Node</th>
                <th scope="col">Run A</th>
                <th scope="col">Run B</th>
                <th scope="col" class="bar-col">
                  A / B
                </th>
                <th scope="col">Δ (B − A)</th>
                <th scope="col">Cost A</th>
                <th scope="col">Cost B</th>
              </tr>
            </thead>
            <tbody>
              {result.nodes.map((node) => (
                <tr key={node.stepName} data-node-id={node.stepName}>
                  <td class="mono">{node.stepName}</td>
                  <td>{formatDuration(node.runAMs)}</td>
                  <td>{formatDuration(node.runBMs)}</td>
                  <td class="bar-col">
                    <Bar value={node.runAMs ?? 0} max={scale} label={`A ${formatDuration(node.runAMs)}`} />
                    <Bar value={node.runBMs ?? 0} max={scale} kind="p95" label={`B ${formatDuration(node.runBMs)}`} />
                  </td>
                  <td class={node.deltaMs !== null && node.deltaMs > 0 ? 'slower' : 'faster'}>
                    {node.deltaMs === null ? '—' : `${node.deltaMs > 0 ? '+' : node.deltaMs < 0 ? '−' : ''}${formatDuration(Math.abs(node.deltaMs))}`}
                  </td>
                  <td>{formatCost(node.runACostUsd)}</td>
                  <td>{formatCost(node.runBCostUsd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}

export function BenchmarksView({ workflow, query }: { workflow: string | undefined; query: URLSearchParams }) {
  const list = useLoad(() => client.bench.workflows(), 'bench-workflows');
  return (
    <section aria-labelledby="bench-title" class="master-detail">
      <div class="master">
        <h1 id="bench-title">Benchmarks</h1>
        <ErrorNote error={list.error} />
        {list.data && list.data.workflows.length === 0 ? <p class="note">No finished runs yet.</p> : null}
        <ul class="pick-list">
          {list.data?.workflows.map((name) => (
            <li key={name}>
              <a
                href={`#/benchmarks/${encodeURIComponent(name)}${query.toString() ? `?${query.toString()}` : ''}`}
                aria-current={name === workflow ? 'page' : undefined}
              >
                {name}
              </a>
            </li>
          ))}
        </ul>
      </div>
      <div class="detail">
        {workflow ? <WorkflowBenchmark workflow={workflow} /> : null}
        <CompareRuns workflow={workflow} a={query.get('a') ?? ''} b={query.get('b') ?? ''} />
      </div>
    </section>
  );
}
