// The workflows and commands that ship with svc (issue 3): every one valid, named after its
// file, each command a node uses present, and `smoke` runnable with no agent and no git repo.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLED_COMMANDS_DIR, BUNDLED_WORKFLOWS_DIR } from '../../src/catalog/index.js';
import { checkWorkflowFile, renderBash, topologicalOrder } from '../../src/workflows/index.js';
import type { WorkflowDefinition } from '../../src/workflows/index.js';

const files = readdirSync(BUNDLED_WORKFLOWS_DIR).filter((f) => f.endsWith('.yaml'));
const commands = readdirSync(BUNDLED_COMMANDS_DIR)
  .filter((f) => f.endsWith('.md'))
  .map((f) => f.slice(0, -3));

function load(file: string): WorkflowDefinition {
  const path = join(BUNDLED_WORKFLOWS_DIR, file);
  const result = checkWorkflowFile(readFileSync(path, 'utf8'), path);
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.workflow;
}

describe('bundled workflows', () => {
  it('ship address-review, assist, fix-ci, fix-issue, review, rework and smoke, and nothing else by accident', () => {
    expect(files.sort()).toEqual(['address-review.yaml', 'assist.yaml', 'fix-ci.yaml', 'fix-issue.yaml', 'review.yaml', 'rework.yaml', 'smoke.yaml']);
    expect(readdirSync(BUNDLED_WORKFLOWS_DIR).sort()).toEqual(files);
  });

  it.each(files)('%s is valid and named after its file', (file) => {
    const path = join(BUNDLED_WORKFLOWS_DIR, file);
    expect(checkWorkflowFile(readFileSync(path, 'utf8'), path)).toMatchObject({ ok: true, raw: { name: file.replace(/\.yaml$/, '') } });
  });

  it('declare no webhook or schedule trigger: the trigger passes of a server leave them out', () => {
    // Registering triggers at every start (and every few seconds) skips the bundled workflows
    // (catalog.ts `registerTriggers`, `scheduledWorkflows`): a bundled trigger would never fire.
    for (const file of files) {
      const { webhook, schedule } = load(file).triggers;
      expect([...webhook, ...(schedule ?? [])], file).toEqual([]);
    }
  });

  it('use only commands that ship too, and at least one', () => {
    const used = files.flatMap((file) => load(file).nodes.flatMap((n) => (n.action.kind === 'command' ? [n.action.command] : [])));
    expect(used.length).toBeGreaterThan(0);
    for (const name of used) expect(commands).toContain(name);
  });

  it('have the shapes they promise', () => {
    expect(load('assist.yaml').nodes.map((n) => n.action.kind)).toEqual(['prompt']);
    expect(load('fix-issue.yaml').nodes.map((n) => `${n.id}:${n.action.kind}`)).toEqual([
      'plan:command',
      'implement:prompt',
      'test:bash',
      'approve:approval',
      'summary:prompt',
    ]);
    const review = load('review.yaml');
    const parallel = review.nodes.filter((n) => n.dependsOn.join() === 'scope').map((n) => n.id);
    expect(parallel).toEqual(['correctness', 'security', 'tests']);
    expect(review.nodes.find((n) => n.id === 'synthesis')?.dependsOn).toEqual(parallel);
    expect(load('smoke.yaml').nodes.every((n) => n.action.kind === 'bash')).toBe(true);
  });

  it('let only the agents that change code edit: fix-issue plans and summarizes reading, implements editing; review reads', () => {
    const permissions = (file: string) => Object.fromEntries(load(file).nodes.map((n) => [n.id, n.permissions ?? '-']));
    expect(permissions('fix-issue.yaml')).toEqual({ plan: 'read', implement: 'edit', test: '-', approve: '-', summary: 'read' });
    expect(permissions('review.yaml')).toEqual({ scope: '-', correctness: 'read', security: 'read', tests: 'read', synthesis: 'read' });
    expect(permissions('assist.yaml')).toEqual({ assist: 'edit' });
    expect(permissions('rework.yaml')).toEqual({ resolve: 'edit' });
    expect(permissions('fix-ci.yaml')).toEqual({ fix: 'edit' });
    expect(permissions('address-review.yaml')).toEqual({ address: 'edit' });
  });
});

describe('fix-issue and the commit per node', () => {
  it('points the gate at svc runs diff, and no longer tells the agent not to commit', () => {
    const nodes = load('fix-issue.yaml').nodes;
    const text = (id: string) => {
      const action = nodes.find((n) => n.id === id)!.action;
      return action.kind === 'approval' ? action.message : action.kind === 'prompt' ? action.prompt : '';
    };
    expect(text('approve')).toContain('svc runs diff $RUN_ID');
    expect(text('implement')).not.toContain('Do not commit');
    expect(text('summary')).toContain("git log -p --grep='Svc-Run: $RUN_ID'");
  });
});

describe('the smoke workflow', () => {
  /** Runs every node the way the engine does (bash, outputs spliced), outside any git repo, with no agent on PATH. */
  function runSmoke(dir: string): Record<string, string> {
    const outputs: Record<string, string> = {};
    const path = ['/usr/bin', '/bin', '/usr/local/bin'].join(':');
    for (const node of topologicalOrder(load('smoke.yaml').nodes)) {
      if (node.action.kind !== 'bash') throw new Error('smoke must be bash only');
      const rendered = renderBash(node.action.bash, outputs);
      const result = spawnSync('bash', ['-c', rendered.script], { cwd: dir, env: { PATH: path, HOME: dir, ...rendered.values }, encoding: 'utf8' });
      expect(result.status, `${node.id}: ${result.stderr}`).toBe(0);
      outputs[node.id] = result.stdout.replace(/\n$/, '');
    }
    return outputs;
  }

  it('succeeds in a plain directory with no agent installed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-smoke-'));
    try {
      const outputs = runSmoke(dir);
      expect(outputs.where).toContain(`directory: ${dir}`);
      expect(outputs.tools).toMatch(/^claude: +not found$/m);
      expect(outputs.git).toMatch(/not a git repository|branch:/);
      expect(outputs.report).toContain(outputs.tools);
      expect(outputs.report?.endsWith('smoke: ok')).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('succeeds in a git repository without commits', () => {
    let hasGit = true;
    try {
      execFileSync('git', ['--version']);
    } catch {
      hasGit = false;
    }
    const dir = mkdtempSync(join(tmpdir(), 'svc-smoke-git-'));
    try {
      if (hasGit) execFileSync('git', ['init', '-q'], { cwd: dir });
      const outputs = runSmoke(dir);
      expect(outputs.git).toMatch(hasGit ? /^branch: .*\ncommit: +no commits yet\nchanged: 0 file\(s\)$/ : /not a git repository/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
