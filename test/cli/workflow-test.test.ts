// `svc workflow test` (a workflow run with its agents answered from a fixture: exit 0 when every
// expectation holds, 1 naming each broken one) and `svc run --dry-run` (the plan, nothing run),
// in process on a store of their own (no server: the routes run in this process).
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { makeHome } from '../helpers/server.js';
import { cleanupAll, FAKE_CLAUDE, projectWithWorkflows, onCleanup, setProcessEnv, tempDir } from '../helpers/runs.js';

let home: string;
let project: string;
let agentLog: string;
const svc = (args: string[]) => runSvcInProcess(args, { SVC_HOME: home, SVC_CLAUDE_BIN: FAKE_CLAUDE });

beforeAll(async () => {
  home = await makeHome();
  onCleanup(async () => (await import('node:fs/promises')).rm(home, { recursive: true, force: true }));
  agentLog = join(await tempDir('svc-cli-fixture-'), 'claude.jsonl');
  setProcessEnv({ FAKE_CLAUDE_LOG: agentLog });
  project = await projectWithWorkflows([
    {
      name: 'triage',
      model: 'sonnet',
      nodes: [
        { id: 'read', bash: 'echo "issue: $ARGUMENTS"' },
        { id: 'label', prompt: 'Label $read.output', permissions: 'read', depends_on: ['read'] },
        { id: 'fix', prompt: 'Fix it', assistant: 'codex', depends_on: ['read'] },
        { id: 'gate', approval: { message: 'Merge?' }, depends_on: ['label', 'fix'] },
        { id: 'merge', bash: 'echo merged', depends_on: ['gate'], when: "$label.output == 'bug'" },
      ],
    },
  ]);
  await mkdir(join(project, '.svc', 'tests'), { recursive: true });
  await writeFile(
    join(project, '.svc', 'tests', 'triage.yaml'),
    [
      'message: login fails',
      'nodes:',
      '  label: { output: bug }',
      '  fix: { output: patched }',
      'approvals: { gate: approve }',
      'expect:',
      '  completed: [read, label, fix, merge]',
      '  contains: { read: "issue: login fails" }',
      '',
    ].join('\n'),
  );
});
afterAll(cleanupAll);

describe('svc workflow test', () => {
  it('exit 0 when every expectation holds (the default fixture .svc/tests/<name>.yaml); no agent process started; the run is deleted', async () => {
    const result = await svc(['workflow', 'test', 'triage', '--cwd', project]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^ok: triage: every expectation holds \(run run_\S+ completed, deleted\)\n$/);
    expect(existsSync(agentLog)).toBe(false);
    expect((await svc(['runs', 'list', '--workflow', 'triage'])).stdout).toBe('');
  });

  it('exit 1 with each broken expectation on its own line; --keep keeps the run, marked test', async () => {
    const fixture = join(project, 'broken.yaml');
    await writeFile(
      fixture,
      'nodes:\n  label: { output: question }\n  fix: { fail: cannot }\napprovals: { gate: approve }\nexpect:\n  completed: [fix, merge]\n',
    );
    const result = await svc(['workflow', 'test', 'triage', '--cwd', project, '--fixture', fixture, '--keep']);
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split('\n')).toEqual([
      "node 'fix': expected completed, was failed (cannot)",
      expect.stringMatching(/^node 'merge': expected completed, was skipped/),
    ]);
    expect(result.stderr).toMatch(/FAIL: triage: 2 expectations broken \(run run_\S+ failed, kept\)/);
    expect((await svc(['runs', 'list', '--workflow', 'triage'])).stdout).toMatch(/\ttriage\tfailed\ttest\t/);
    expect(existsSync(agentLog)).toBe(false);
  });

  it('an invalid fixture: exit 1, each problem as file:line:col; an unreadable one names itself', async () => {
    const fixture = join(project, 'typo.yaml');
    await writeFile(fixture, 'nodes:\n  lable: { output: bug }\n');
    const result = await svc(['workflow', 'test', 'triage', '--cwd', project, '--fixture', fixture]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`${fixture}:2:10: nodes.lable: no node 'lable' in workflow 'triage'\n`);
    const missing = await svc(['workflow', 'test', 'triage', '--cwd', project, '--fixture', join(project, 'none.yaml')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/none\.yaml: cannot read the fixture: ENOENT/);
  });
});

describe('svc run --dry-run', () => {
  it('prints the plan — steps, parallel nodes, conditions, agents and permissions — and runs nothing', async () => {
    const before = (await svc(['runs', 'list'])).stdout;
    const result = await svc(['run', 'triage', 'x', '--cwd', project, '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        'triage: 5 nodes in 4 steps (dry run: nothing was started)',
        '1.',
        '   read: bash',
        '2. in parallel (2):',
        '   label: prompt · agent claude (sonnet), permissions read · after read',
        '   fix: prompt · agent codex (sonnet), permissions edit · after read',
        '3.',
        '   gate: approval · asks "Merge?" · after label, fix',
        '4.',
        "   merge: bash · after gate · when $label.output == 'bug'",
        '',
      ].join('\n'),
    );
    const plan = JSON.parse((await svc(['--json', 'run', 'triage', '--cwd', project, '--dry-run'])).stdout);
    expect(plan.steps.map((step: Array<{ id: string }>) => step.map((node) => node.id))).toEqual([['read'], ['label', 'fix'], ['gate'], ['merge']]);
    expect((await svc(['runs', 'list'])).stdout).toBe(before);
    expect(existsSync(agentLog)).toBe(false);
  });
});
