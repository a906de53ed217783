// Workflow benchmarks (issue 3), run by `npm run bench` through bench/run.mjs on the built code:
// - discovery of 200 workflow files, cold (every file read and validated) and warm (the per-file
//   cache answers; only readdir + stat): warm must cost a small fraction of cold;
// - validation of one 500-node workflow, against parsing the same YAML alone;
// - the bash parser that checks svc's reading of a script with outside values (issue 31): its load
//   once per process, and one script's parse against svc's own scan of it; the positive policy
//   (what each value holds, where it stands) on that parse, and the whole check of one script.
// Each row: { name, value, unit, reference?, ratio?, target? } — `reference` is the reference
// measured in the same run (same unit), `ratio` value ÷ reference, `target` the bound on the ratio
// that bench/run.mjs marks PASS or MISS (never an absolute time).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parse } from 'yaml';
import { discoverWorkflows, WorkflowFileCache } from '../dist/catalog/index.js';
import { validateWorkflowSource } from '../dist/workflows/index.js';
import { loadBashParser, parseBash } from '../dist/workflows/shell/bash-parser.js';
import { scanShell } from '../dist/workflows/shell/scanner.js';
import { outsideValueProblems } from '../dist/workflows/shell/check.js';
import { placementProblems } from '../dist/workflows/shell/placement.js';
import { readTaint } from '../dist/workflows/shell/taint.js';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const FILES = 200;
const NODES = 500;

/** A realistic project workflow: a plan, a fan-out of checks, a gate, a summary. */
function projectWorkflow(name) {
  return `name: ${name}
description: Benchmark workflow ${name}
nodes:
  - id: plan
    prompt: "Plan the change for: $ARGUMENTS"
  - id: lint
    bash: npm run lint -- --quiet
    depends_on: [plan]
    timeout: 5m
  - id: test
    bash: npm test
    depends_on: [plan]
    retry: { max_attempts: 2, delay: 5s }
  - id: review
    prompt: "Review this plan: $plan.output"
    depends_on: [plan]
  - id: gate
    approval: { message: "Lint and tests done; ship ${name}?" }
    depends_on: [lint, test, review]
    when: "$test.output != 'skip'"
  - id: summary
    prompt: "Summarize: $review.output"
    depends_on: [gate]
triggers:
  webhook:
    - { event: push, slug: ${name}-push, secret_env: PUSH_SECRET, idempotency_key: delivery_id }
`;
}

/** 500 nodes in a braid: each depends on the two before it, outputs referenced, some conditions. */
function largeWorkflow() {
  const lines = ['name: large', 'description: 500 nodes', 'nodes:'];
  for (let i = 0; i < NODES; i++) {
    lines.push(`  - id: n${i}`);
    if (i % 3 === 0) lines.push(`    bash: echo step ${i}`);
    else lines.push(`    prompt: "Continue from: $n${Math.max(0, i - 1)}.output"`);
    const deps = [i - 1, i - 2].filter((d) => d >= 0).map((d) => `n${d}`);
    if (deps.length > 0) lines.push(`    depends_on: [${deps.join(', ')}]`);
    if (i % 10 === 5) lines.push(`    when: "$n${i - 1}.output != 'stop'"`);
  }
  return `${lines.join('\n')}\n`;
}

/** Median of `runs` timings of `work` (ms), after `warmup` untimed runs. */
async function median(work, { runs = 15, warmup = 3 } = {}) {
  for (let i = 0; i < warmup; i++) await work();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const round = (n, digits = 3) => Number(n.toFixed(digits));

export async function benchWorkflows() {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-workflows-'));
  try {
    const folder = join(dir, '.svc', 'workflows');
    await mkdir(folder, { recursive: true });
    await Promise.all(Array.from({ length: FILES }, (_, i) => writeFile(join(folder, `wf-${i}.yaml`), projectWorkflow(`wf-${i}`))));

    const check = await discoverWorkflows({ cwd: dir });
    if (check.errors.length > 0 || check.workflows.filter((w) => w.source === 'project').length !== FILES) {
      throw new Error(
        `bench setup: expected ${FILES} valid workflows, got errors: ${check.errors
          .slice(0, 3)
          .map((e) => e.error)
          .join('; ')}`,
      );
    }
    const cold = await median(() => discoverWorkflows({ cwd: dir, cache: new WorkflowFileCache() }), { runs: 9, warmup: 2 });
    const cache = new WorkflowFileCache();
    await discoverWorkflows({ cwd: dir, cache });
    const warm = await median(() => discoverWorkflows({ cwd: dir, cache }), { runs: 25 });

    const text = largeWorkflow();
    const result = validateWorkflowSource(text);
    if (!result.ok) throw new Error(`bench setup: the 500-node workflow is invalid: ${result.errors.slice(0, 3).join('; ')}`);
    const parseOnly = await median(() => parse(text));
    const validate = await median(() => validateWorkflowSource(text));

    // The bash parser that checks svc's reading of a script with outside values (issue 31): its
    // load, once per process (a node start with it against one without), and one script's parse
    // against svc's own scan of it.
    const parserModule = fileURLToPath(new URL('../dist/workflows/shell/bash-parser.js', import.meta.url));
    const wall = (code) => median(() => spawnSync(process.execPath, ['--input-type=module', '-e', code], { stdio: 'ignore' }), { runs: 7, warmup: 1 });
    const bare = await wall('0');
    const withParser = await wall(`await (await import(${JSON.stringify(parserModule)})).loadBashParser()`);
    const bareModule = await wall(`await import(${JSON.stringify(parserModule)})`);
    await loadBashParser();
    const script =
      'if [ -n "$ARGUMENTS" ]; then\n  printf "%s\\n" "$ARGUMENTS" > out.txt\nfi\ncase "$x_output" in *) echo hi;; esac\nf() { local a="$1"; echo "$a"; }\nf "$ARGUMENTS"\n';
    const parsed = await median(() => parseBash(script).delete(), { runs: 201, warmup: 20 });
    const scanned = await median(() => scanShell(script), { runs: 201, warmup: 20 });
    const tree = parseBash(script);
    const policy = await median(() => placementProblems(readTaint(tree.rootNode, new Set(), script), script), { runs: 201, warmup: 20 });
    tree.delete();
    // A new script each time: the check keeps its answers for recent scripts.
    let k = 0;
    const whole = await median(() => outsideValueProblems(`${script}# ${k++}\n`), { runs: 201, warmup: 20 });

    return [
      {
        name: 'bash parser load, once per process, when a script takes outside values (node start with it − without)',
        value: round(withParser - bareModule, 1),
        unit: 'ms',
        reference: round(bare, 1),
      },
      {
        name: 'bash parser, one script ÷ svc’s own scan of it',
        value: round(parsed, 3),
        unit: 'ms',
        reference: round(scanned, 3),
        ratio: round(parsed / scanned),
      },
      {
        name: 'positive policy on the parse (taint + placement), one script ÷ the parse',
        value: round(policy, 3),
        unit: 'ms',
        reference: round(parsed, 3),
        ratio: round(policy / parsed),
      },
      {
        name: 'the whole check of one script with outside values (scan, parse, rules, policy) ÷ svc’s own scan',
        value: round(whole, 3),
        unit: 'ms',
        reference: round(scanned, 3),
        ratio: round(whole / scanned),
      },
      { name: `workflow discovery, ${FILES} files, cold`, value: round(cold, 1), unit: 'ms' },
      {
        name: `workflow discovery, ${FILES} files, warm ÷ cold`,
        value: round(warm, 2),
        unit: 'ms',
        reference: round(cold, 1),
        ratio: round(warm / cold),
        target: '≤ 0.25',
      },
      {
        name: `validate a ${NODES}-node workflow ÷ yaml.parse alone`,
        value: round(validate, 1),
        unit: 'ms',
        reference: round(parseOnly, 1),
        ratio: round(validate / parseOnly),
        target: '≤ 10',
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// `node bench/workflows.mjs` runs it alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  console.table(await benchWorkflows());
}
