// `svc workflow show|graph|save|delete` (issue 3), offline and through a server.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLED_WORKFLOWS_DIR } from '../../src/catalog/index.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { useCliModes } from '../helpers/cli-modes.js';
import { makeProject, workflowYaml } from '../helpers/workflow-project.js';

const { modes, project } = useCliModes();

describe.each(modes)('svc workflow show and graph ($mode)', ({ env }) => {
  it('show prints the source, the definition as YAML and the DAG', async () => {
    const result = await runSvcInProcess(['workflow', 'show', 'review'], await env(), { cwd: project().dir });
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith(`review (bundled)\n`)).toBe(true);
    expect(result.stdout).toContain(join(BUNDLED_WORKFLOWS_DIR, 'review.yaml'));
    expect(result.stdout).toContain('\nnodes:\n  - id: scope\n    bash: |\n');
    // The permissions in effect, defaults applied, for every agent node.
    expect(result.stdout).toContain('\nagent permissions: correctness read, security read, tests read, synthesis read\n');
    expect(result.stdout).toMatch(/│ synthesis +│\n *│ prompt +│\n *│ ← correctness, security, tests │\n *└─+┘\n$/);
  });

  it('graph draws boxes, or Mermaid with --mermaid', async () => {
    await project().write('pair.yaml', workflowYaml('pair'));
    const e = await env();
    const boxes = await runSvcInProcess(['workflow', 'graph', 'pair', '--ascii'], e, { cwd: project().dir });
    expect(boxes).toEqual({
      code: 0,
      stdout: [
        '  +-------+',
        '  | first |',
        '  | bash  |',
        '  +-------+',
        '      |',
        '      v',
        '+----------+',
        '| second   |',
        '| prompt   |',
        '| <- first |',
        '+----------+',
        '',
      ].join('\n'),
      stderr: '',
    });
    const mermaid = await runSvcInProcess(['workflow', 'graph', 'pair', '--mermaid'], e, { cwd: project().dir });
    expect(mermaid.stdout).toBe('flowchart TD\n  n0["first (bash)"]\n  n1["second (prompt)"]\n  n0 --> n1\n');
  });

  it('an unknown workflow exits 1 with the server’s message', async () => {
    const result = await runSvcInProcess(['workflow', 'show', 'nope'], await env(), { cwd: project().dir });
    expect(result).toEqual({ code: 1, stdout: '', stderr: "svc: No workflow named 'nope'.\n" });
  });
});

describe.each(modes)('svc workflow save and delete ($mode)', ({ env }) => {
  it('saves a file to <cwd>/.svc/workflows/<name>.yaml as written, then deletes it', async () => {
    const e = await env();
    const draft = join(project().dir, 'draft.yaml');
    const text = `# keep this comment\n${workflowYaml('nightly')}\n`;
    await writeFile(draft, text);
    const saved = await runSvcInProcess(['workflow', 'save', 'draft.yaml'], e, { cwd: project().dir });
    const target = join(project().workflowsDir, 'nightly.yaml');
    expect(saved).toEqual({ code: 0, stdout: `Saved nightly to ${target}\n`, stderr: '' });
    expect(await readFile(target, 'utf8')).toBe(text);
    expect((await runSvcInProcess(['workflow', 'list'], e, { cwd: project().dir })).stdout).toMatch(/^nightly\tproject\t2\t/m);

    const deleted = await runSvcInProcess(['workflow', 'delete', 'nightly'], e, { cwd: project().dir });
    expect(deleted).toEqual({ code: 0, stdout: `Deleted ${target}\n`, stderr: '' });
    expect(existsSync(target)).toBe(false);
  });

  it('an invalid file is not saved: errors point into the local file, exit 1', async () => {
    const draft = join(project().dir, 'bad.yaml');
    await writeFile(draft, 'name: bad\ndescription: x\nnodes:\n  - id: a\n    bash: ls\n    depends_on: [zz]\n');
    const result = await runSvcInProcess(['workflow', 'save', draft], await env(), { cwd: project().dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(`${draft}:6:18: nodes[0].depends_on: unknown node 'zz'\n`);
    expect(result.stderr).toBe(`svc: ${draft} was not saved: The workflow definition has 1 error; nothing was saved.\n`);
    expect(existsSync(join(project().workflowsDir, 'bad.yaml'))).toBe(false);
  });

  it('--cwd without a .svc/workflows/ folder is refused with a message saying so', async () => {
    const bare = await makeProject({ bare: true });
    try {
      const draft = join(project().dir, 'x.yaml');
      await writeFile(draft, workflowYaml('x'));
      const result = await runSvcInProcess(['workflow', 'save', draft, '--cwd', bare.dir], await env(), { cwd: project().dir });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`has no ${join('.svc', 'workflows')}/ folder`);
      expect(existsSync(join(bare.dir, '.svc'))).toBe(false);
    } finally {
      await bare.remove();
    }
  });

  it('deleting a bundled workflow is refused; an unknown one is not found; both exit 1', async () => {
    const e = await env();
    const bundled = await runSvcInProcess(['workflow', 'delete', 'smoke'], e, { cwd: project().dir });
    expect(bundled.code).toBe(1);
    expect(bundled.stderr).toMatch(/^svc: 'smoke' is a bundled workflow and cannot be deleted/);
    const unknown = await runSvcInProcess(['workflow', 'delete', 'ghost'], e, { cwd: project().dir });
    expect(unknown).toEqual({ code: 1, stdout: '', stderr: `svc: No project workflow named 'ghost' in ${project().dir}.\n` });
  });
});
