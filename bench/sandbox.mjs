// What the sandbox adds to a node's start-up (issue 30; docs/decisions.md, "Agents in a sandbox" and
// "Bash nodes in a sandbox"), through a real built `svc serve` (bench/processes.mjs), each figure the
// node's own `durationMs` from its run record (start → exit, commit included), so the API calls are
// outside it; a run's end is read from the dashboard stream, so no polling loads the server while a
// node is timed. Informational: no targets.
//
//   bash node     a workflow of one `bash: "true"` node with `sandbox: true` against the same node
//                 without; per server a warm-up run, then the first sandboxed node (it pays the
//                 runtime's session start, once per process), then REPS pairs, interleaved; three
//                 servers, the medians over all pairs and the median of the three first nodes
//   agent node    a prompt node of the real Claude Code and Codex (the pinned devDependencies),
//                 offline against the tests' stand-in of their model API (test/support/, loaded
//                 through tsx), which asks for one Bash / exec_command call `echo hi`, then answers:
//                 `permissions: edit` (their CLI's own sandbox) against `full` (none); a warm-up of
//                 each, then AGENT_REPS pairs, interleaved
//
// Each figure is checked before it counts: the bash nodes' records say `sandbox: "on"` or nothing;
// an agent node's output is the stand-in's final answer, which it gives only after a tool result,
// that result holds `hi` and no error, and nothing tried to leave the machine. A CLI that cannot
// run here gives an ERROR row saying why, never a number.
//
// `node bench/sandbox.mjs` (after `npm run build`) prints the rows alone; bench/run.mjs adds them to
// its table (export `benchSandbox()`).
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { median, watchRuns } from './measure.mjs';
import { cleanup, round, startServerProcess, stopServer, SVC_BIN, tempDir, withTimeout } from './processes.mjs';

const BASH_SERVERS = 3;
const REPS = 7;
const AGENT_REPS = 7;
const BASH_RUN_TIMEOUT_MS = 30_000;
const AGENT_RUN_TIMEOUT_MS = 120_000;
const KEY_ENV = 'SVC_BENCH_STANDIN_KEY';

async function api(server, method, path, body) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** A project directory holding `workflows` (name → the YAML of its nodes). */
async function project(workflows) {
  const dir = tempDir('svc-bench-sandbox-project-');
  await mkdir(join(dir, '.svc', 'workflows'), { recursive: true });
  for (const [name, nodes] of Object.entries(workflows))
    await writeFile(join(dir, '.svc', 'workflows', `${name}.yaml`), `name: ${name}\ndescription: sandbox bench\nnodes:\n${nodes}`);
  return dir;
}

/** `svc serve` in a fresh home, with `env` on top of this process's (the agents inherit it), and a watch on its dashboard stream. */
async function startWatched(env = {}) {
  const home = tempDir('svc-bench-sandbox-');
  const server = await startServerProcess([SVC_BIN, 'serve'], { env: { PORT: '0', SVC_HOME: home, SVC_LOG_LEVEL: 'warn', ...env }, cwd: home });
  const watcher = watchRuns(server.url);
  await withTimeout(watcher.opened, 10_000, 'the dashboard stream');
  return { ...server, watcher };
}

async function stopWatched(server) {
  server.watcher.close();
  await stopServer(server);
}

/** Runs `workflow` in `cwd` and returns its one node's record once the run has settled. */
async function runNode(server, workflow, cwd, timeoutMs) {
  const started = await api(server, 'POST', `/api/workflows/${workflow}/run`, { message: 'bench', cwd });
  if (started.status !== 202) throw new Error(`starting ${workflow} answered ${started.status}: ${JSON.stringify(started.body)}`);
  const { runId } = started.body;
  await withTimeout(server.watcher.until(runId), timeoutMs, `the run of ${workflow}`);
  const { body: run } = await api(server, 'GET', `/api/workflows/runs/${runId}`);
  const node = Object.values(run.nodes)[0];
  if (run.status !== 'completed') throw new Error(`${workflow} ended ${run.status}: ${node?.errorCode ?? ''} ${node?.error ?? ''}`.trim());
  if (typeof node.durationMs !== 'number') throw new Error(`${workflow}: the node has no durationMs`);
  return node;
}

// ---- bash nodes --------------------------------------------------------------------------------

async function bashRows() {
  const cwd = await project({
    'sb-plain': '  - id: n\n    bash: "true"\n',
    'sb-boxed': '  - id: n\n    bash: "true"\n    sandbox: true\n',
  });
  const plain = async (server) => {
    const node = await runNode(server, 'sb-plain', cwd, BASH_RUN_TIMEOUT_MS);
    if (node.sandbox !== undefined) throw new Error(`the unsandboxed node's record says sandbox: ${node.sandbox}`);
    return node.durationMs;
  };
  const boxed = async (server) => {
    const node = await runNode(server, 'sb-boxed', cwd, BASH_RUN_TIMEOUT_MS);
    if (node.sandbox !== 'on') throw new Error(`the sandboxed node's record says sandbox: ${node.sandbox}`);
    return node.durationMs;
  };
  const first = [];
  const plainMs = [];
  const boxedMs = [];
  for (let i = 0; i < BASH_SERVERS; i++) {
    const server = await startWatched();
    try {
      // Discovery and the JIT are paid here, before the first sandboxed node, so that node pays the session alone.
      await plain(server);
      first.push(await boxed(server));
      for (let k = 0; k < REPS; k++) {
        plainMs.push(await plain(server));
        boxedMs.push(await boxed(server));
      }
    } finally {
      await stopWatched(server);
    }
  }
  const on = median(boxedMs);
  const off = median(plainMs);
  const samples = `median of ${boxedMs.length}`;
  return [
    {
      name: `sandbox: bash node \`true\`, sandbox: true ÷ without (${samples})`,
      value: round(on, 1),
      unit: 'ms',
      reference: round(off, 1),
      ratio: round(on / off),
    },
    { name: 'sandbox: bash node, start-up the sandbox adds (sandboxed − unsandboxed)', value: round(on - off, 1), unit: 'ms' },
    {
      name: `sandbox: bash node, a process's first sandboxed node (the runtime's session start) ÷ a later one (median of ${first.length})`,
      value: round(median(first), 1),
      unit: 'ms',
      reference: round(on, 1),
      ratio: round(median(first) / on),
    },
  ];
}

// ---- agent nodes -------------------------------------------------------------------------------

const support = (file) => tsImport(fileURLToPath(new URL(`../test/support/${file}`, import.meta.url)), import.meta.url);

/** What the stand-in got back from the tool call of a run, the requests since `from`: `hi`, and no error. */
function checkToolResult(assistant, standIns, model, from) {
  const since = { ...model, requests: model.requests.slice(from) };
  const results = assistant === 'claude' ? standIns.claudeToolResults(since) : standIns.codexCallOutputs(since);
  const text = JSON.stringify(results.at(-1) ?? null);
  // Codex's output is `…Output:\nhi\n`, escaped once more in the JSON text.
  if (!results.length || !/\bhi\b/.test(text.replaceAll('\\n', ' ')) || /"is_error":true/.test(text))
    throw new Error(`${assistant}'s \`echo hi\` came back as ${text}`);
}

/**
 * One assistant's node at `edit` and at `full`. Two servers, since the two levels need different
 * environments as root: Claude Code at `full` (bypassPermissions) needs IS_SANDBOX=1, and the
 * sandbox tests run `edit` without it (test/agents-real/sandbox.test.ts); the servers only wait.
 */
async function agentRows(assistant, standIns, agents) {
  const bin = assistant === 'claude' ? agents.REAL_CLAUDE : agents.REAL_CODEX;
  if (!existsSync(bin)) return [{ name: `sandbox: ${assistant} node at edit ÷ full`, error: `not measured: ${bin} is not installed (npm ci)` }];
  const trap = await standIns.startNetworkTrap();
  const model =
    assistant === 'claude' ? await standIns.startClaudeBashStandIn(['echo hi'], 'DONE') : await standIns.startCodexCommandsStandIn(['echo hi'], 'DONE');
  const home = await agents.agentHome('svc-bench-sandbox-home-');
  const servers = [];
  try {
    const env = {
      ...(await agents.offlineAgentEnv(home, trap)),
      [KEY_ENV]: 'sk-standin-not-a-real-key',
      SVC_CLAUDE_BIN: agents.REAL_CLAUDE,
      SVC_CODEX_BIN: agents.REAL_CODEX,
    };
    const endpoint = assistant === 'claude' ? { baseUrl: model.url, apiKeyEnv: KEY_ENV } : { baseUrl: `${model.url}/v1`, apiKeyEnv: KEY_ENV, model: 'gpt-5' };
    const levels = {};
    for (const level of ['edit', 'full']) {
      const server = await startWatched({ ...env, IS_SANDBOX: level === 'full' ? '1' : '' });
      servers.push(server);
      const patched = await api(server, 'PATCH', '/api/config/assistants', { [assistant]: endpoint });
      if (patched.status !== 200) throw new Error(`setting the ${assistant} endpoint answered ${patched.status}`);
      levels[level] = { server, times: [] };
    }
    const cwd = await project(
      Object.fromEntries(
        ['edit', 'full'].map((level) => [
          `sb-${assistant}-${level}`,
          `  - id: ask\n    assistant: ${assistant}\n    permissions: ${level}\n    prompt: "Run echo hi."\n`,
        ]),
      ),
    );
    const once = async (level) => {
      const from = model.requests.length;
      const node = await runNode(levels[level].server, `sb-${assistant}-${level}`, cwd, AGENT_RUN_TIMEOUT_MS);
      if (node.output !== 'DONE') throw new Error(`${assistant} at ${level} answered ${JSON.stringify(node.output)}`);
      if ((node.sandbox === 'on') !== (level === 'edit')) throw new Error(`${assistant} at ${level}: the record says sandbox: ${node.sandbox}`);
      checkToolResult(assistant, standIns, model, from);
      if (trap.attempts.length) throw new Error(`${assistant} tried to leave the machine: ${trap.attempts.join(', ')}`);
      return node.durationMs;
    };
    // The first run of each pays what a CLI does once per HOME (codex's helper aliases, caches).
    for (const level of ['edit', 'full']) await once(level);
    for (let k = 0; k < AGENT_REPS; k++) for (const level of ['full', 'edit']) levels[level].times.push(await once(level));
    const edit = median(levels.edit.times);
    const full = median(levels.full.times);
    return [
      {
        name: `sandbox: ${assistant} node running \`echo hi\`, edit (sandboxed) ÷ full (median of ${AGENT_REPS})`,
        value: round(edit, 1),
        unit: 'ms',
        reference: round(full, 1),
        ratio: round(edit / full),
      },
      { name: `sandbox: ${assistant} node, start-up the sandbox adds (edit − full)`, value: round(edit - full, 1), unit: 'ms' },
    ];
  } finally {
    for (const server of servers) await stopWatched(server);
    await Promise.all([model.close(), trap.close()]);
    await rm(home, { recursive: true, force: true });
  }
}

// ---- the rows ----------------------------------------------------------------------------------

/** Runs `work`; a failure becomes an ERROR row saying why (a CLI that cannot run here is not measured). */
async function rowsOr(name, work) {
  try {
    return await work();
  } catch (error) {
    return [{ name, error: `not measured: ${error.message}` }];
  }
}

export async function benchSandbox() {
  try {
    const rows = await rowsOr('sandbox: bash node', bashRows);
    const standIns = await support('model-standins.ts');
    const agents = await support('real-agents.ts');
    for (const assistant of ['claude', 'codex'])
      rows.push(...(await rowsOr(`sandbox: ${assistant} node at edit ÷ full`, () => agentRows(assistant, standIns, agents))));
    return rows;
  } finally {
    cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const row of await benchSandbox()) {
    if (row.error) console.log(`ERROR  ${row.name}: ${row.error}`);
    else
      console.log(`${row.name}: ${row.value} ${row.unit}${row.reference === undefined ? '' : ` (reference ${row.reference} ${row.unit}, ratio ${row.ratio})`}`);
  }
  process.exit();
}
