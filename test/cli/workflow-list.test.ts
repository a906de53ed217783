// `svc workflow list` and `svc commands` as users and scripts run them (issue 3): TSV when piped,
// errors on stderr, --json, the same answers through a server and straight from the store.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLED_COMMANDS_DIR, BUNDLED_WORKFLOWS_DIR } from '../../src/catalog/index.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { useCliModes } from '../helpers/cli-modes.js';
import { webhookTriggers, workflowYaml } from '../helpers/workflow-project.js';

const { modes, project } = useCliModes();

describe.each(modes)('svc workflow list ($mode)', ({ env }) => {
  it('prints one tab-separated line per workflow when piped, errors on stderr, exit 0', async () => {
    await project().write('deploy.yaml', workflowYaml('deploy', { description: 'Ship\tit', extra: webhookTriggers('on-push', 'on-tag') }));
    const broken = await project().write('broken.yaml', 'name: broken\n');
    const result = await runSvcInProcess(['workflow', 'list'], await env(), { cwd: project().dir });
    expect(result.code).toBe(0);
    const rows = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t'));
    expect(rows.map((r) => r[0])).toEqual(['address-review', 'assist', 'deploy', 'fix-ci', 'fix-issue', 'review', 'rework', 'smoke']);
    for (const row of rows) expect(row).toHaveLength(7);
    // The last column is the workspace a workflow belongs to: none for the cwd's project (not registered) and bundled ones.
    expect(rows[2]).toEqual(['deploy', 'project', '2', 'webhook:on-push,webhook:on-tag', 'Ship it', join(project().workflowsDir, 'deploy.yaml'), '-']);
    expect(rows[7]).toEqual(['smoke', 'bundled', '4', '', expect.stringMatching(/no agent needed/), join(BUNDLED_WORKFLOWS_DIR, 'smoke.yaml'), '-']);
    expect(result.stderr).toBe(['1 workflow file could not be used:', `${broken}:1:1: missing required fields 'description', 'nodes'`, ''].join('\n'));
  });

  it('--cwd names the project, resolved against the current directory', async () => {
    await project().write('here.yaml', workflowYaml('here'));
    const result = await runSvcInProcess(['workflow', 'list', '--cwd', project().dir.split('/').pop()!], await env(), { cwd: join(project().dir, '..') });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^here\tproject\t/m);
    const missing = await runSvcInProcess(['workflow', 'list', '--cwd', 'no-such-dir'], await env(), { cwd: project().dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`svc: cwd '${join(project().dir, 'no-such-dir')}' is not an existing directory.\n`);
  });

  it('--json prints the API document', async () => {
    const broken = await project().write('broken.yaml', 'name: [');
    const result = await runSvcInProcess(['workflow', 'list', '--json'], await env(), { cwd: project().dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const body = JSON.parse(result.stdout);
    expect(body.workflows.map((w: { name: string }) => w.name)).toEqual(['address-review', 'assist', 'fix-ci', 'fix-issue', 'review', 'rework', 'smoke']);
    expect(body.errors).toEqual([{ filename: broken, error: expect.stringContaining(`${broken}:`) }]);
  });
});

describe.each(modes)('svc commands ($mode)', ({ env }) => {
  it('lists bundled and project commands, one tab-separated line each', async () => {
    const triage = await project().writeCommand('triage.md', '# Triage new issues\n$ARGUMENTS\n');
    const result = await runSvcInProcess(['commands'], await env(), { cwd: project().dir });
    expect(result.code).toBe(0);
    expect(
      result.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t')),
    ).toEqual([
      ['commit-message', 'bundled', 'Draft a commit message for the uncommitted changes', join(BUNDLED_COMMANDS_DIR, 'commit-message.md')],
      ['plan', 'bundled', expect.stringMatching(/^Plan a change/), join(BUNDLED_COMMANDS_DIR, 'plan.md')],
      ['triage', 'project', 'Triage new issues', triage],
    ]);
  });
});
