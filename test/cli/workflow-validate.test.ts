// `svc workflow validate` as CI runs it (issue 3): offline, compiler-style output, exit codes.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUNDLED_WORKFLOWS_DIR } from '../../src/catalog/index.js';
import { runCli } from '../helpers/cli.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { closedPort } from '../helpers/serve-process.js';
import { makeProject, workflowYaml, type Project } from '../helpers/workflow-project.js';

let project: Project;
let env: Record<string, string>;
beforeEach(async () => {
  project = await makeProject();
  // No server, and a home that must never be created: validation touches neither.
  env = { SVC_HOME: join(project.dir, 'no-home'), PORT: String(await closedPort()) };
});
afterEach(async () => {
  expect(existsSync(env.SVC_HOME!)).toBe(false);
  await project.remove();
});

const BROKEN =
  'name: broken\ndescription: x\nnodes:\n  - id: a\n    bash: ls\n    depends_on: [tset]\n  - id: test\n    bash: ls\n    retry: { max_attempts: 0 }\n';

describe('svc workflow validate', () => {
  it('exits 0 with one OK line for valid files', async () => {
    const a = await project.write('a.yaml', workflowYaml('a'));
    const b = await project.write('b.yml', workflowYaml('b'));
    const result = await runSvcInProcess(['workflow', 'validate', a, b], env);
    expect(result).toEqual({ code: 0, stdout: 'ok: 2 workflow files valid\n', stderr: '' });
  });

  it('prints every problem as file:line:col: message and exits 1', async () => {
    await project.write('good.yaml', workflowYaml('good'));
    await project.write('broken.yaml', BROKEN);
    const result = await runSvcInProcess(['workflow', 'validate', '.svc/workflows/good.yaml', '.svc/workflows/broken.yaml'], env, { cwd: project.dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      [
        ".svc/workflows/broken.yaml:6:18: nodes[0].depends_on: unknown node 'tset' (did you mean 'test'?)",
        '.svc/workflows/broken.yaml:9:28: nodes[1].retry.max_attempts: must be from 1 to 10 (the total number of attempts)',
        '1 of 2 workflow files invalid (2 errors)',
        '',
      ].join('\n'),
    );
    expect(result.stderr).toBe('');
  });

  it('reports YAML syntax errors and unreadable files, and still checks the rest', async () => {
    const syntax = await project.write('syntax.yaml', 'name: [oops\n');
    const missing = join(project.dir, 'missing.yaml');
    const good = await project.write('fine.yaml', workflowYaml('fine'));
    const result = await runSvcInProcess(['workflow', 'validate', syntax, missing, good], env);
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${syntax}:\\d+:\\d+: invalid YAML: `));
    expect(lines.at(-2)).toBe(`${missing}: cannot read: ENOENT`);
    expect(lines.at(-1)).toBe('2 of 3 workflow files invalid (2 errors)');
    expect(result.stdout).not.toContain('fine.yaml');
    expect(result.stderr).toBe('');
  });

  it('checks the file-name rule inside .svc/workflows/ only', async () => {
    const inside = await project.write('wrong-stem.yaml', workflowYaml('right-name'));
    const draft = join(project.dir, 'draft.yaml');
    await writeFile(draft, workflowYaml('right-name'));
    const result = await runSvcInProcess(['workflow', 'validate', inside, draft], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      `${inside}:1:7: name: 'right-name' does not match the file name 'wrong-stem.yaml' (rename the file to right-name.yaml, or set name: wrong-stem)\n` +
        '1 of 2 workflow files invalid (1 error)\n',
    );
  });

  it('prints the count on a line of its own after the last error, on the same stream (issue 29)', async () => {
    // The error of the report, which ends without a full stop: the count was glued to it
    // (`…perl's %ENV)1 of 1 workflow file invalid`) wherever stdout and stderr were joined.
    const sed = await project.write(
      'sed.yaml',
      'name: sed\ndescription: x\nnodes:\n  - id: a\n    bash: echo hi\n  - id: b\n    bash: \'sed -e "s/x/$ARGUMENTS/e" <<< "$a.output"\'\n    depends_on: [a]\n',
    );
    const result = await runCli(['workflow', 'validate', sed], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    const lines = result.stdout.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^${sed}:7:\\d+: .*perl's %ENV\\)$`));
    expect(lines.slice(1)).toEqual(['1 of 1 workflow file invalid (1 error)', '']);
  });

  it('takes a directory as its workflow files, and validates the bundled ones', async () => {
    await project.write('one.yaml', workflowYaml('one'));
    await project.write('two.yaml', workflowYaml('two'));
    await project.write('README.md', '# not a workflow');
    expect(await runSvcInProcess(['workflow', 'validate', project.workflowsDir], env)).toMatchObject({ code: 0, stdout: 'ok: 2 workflow files valid\n' });
    expect(await runSvcInProcess(['workflow', 'validate', BUNDLED_WORKFLOWS_DIR], env)).toMatchObject({ code: 0, stdout: 'ok: 7 workflow files valid\n' });
    const empty = await mkdtemp(join(tmpdir(), 'svc-empty-'));
    try {
      const result = await runSvcInProcess(['workflow', 'validate', empty], env);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`svc: ${empty}: no .yaml or .yml files in this directory\n`);
    } finally {
      await rm(empty, { recursive: true });
    }
  });

  it('an assistant a letter from claude or codex is valid (it may be a configured acp one) and warned of, exit 0', async () => {
    const text = 'name: near\ndescription: x\nassistant: coder\nnodes:\n  - id: a\n    prompt: hi\n  - id: b\n    prompt: hi\n    assistant: claude2\n';
    const file = await project.write('near.yaml', text);
    const result = await runSvcInProcess(['workflow', 'validate', file], env);
    expect(result).toEqual({
      code: 0,
      stdout: [
        `${file}: warning: assistant: 'coder' is not claude or codex: an acp assistant of that name must be configured (did you mean 'codex'?)`,
        `${file}: warning: nodes[1].assistant: 'claude2' is not claude or codex: an acp assistant of that name must be configured (did you mean 'claude'?)`,
        'ok: 1 workflow file valid',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('--json prints one document with every file', async () => {
    const good = await project.write('good.yaml', workflowYaml('good'));
    const broken = await project.write('broken.yaml', BROKEN);
    const result = await runSvcInProcess(['workflow', 'validate', '--json', good, broken], env);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      valid: false,
      files: [
        { file: good, valid: true, errors: [], warnings: [] },
        {
          file: broken,
          valid: false,
          errors: [expect.stringContaining(`${broken}:6:18:`), expect.stringContaining(`${broken}:9:28:`)],
          warnings: [],
        },
      ],
    });
  });

  it("with no file, validates the current project's .svc/workflows/ (issue 32), through the built CLI", async () => {
    await project.write('good.yaml', workflowYaml('good'));
    await project.write('other.yml', workflowYaml('other'));
    const valid = await runCli(['workflow', 'validate'], { env, cwd: project.dir });
    expect(valid).toEqual({ code: 0, stdout: 'ok: 2 workflow files valid\n', stderr: '' });

    await project.write('broken.yaml', BROKEN);
    const invalid = await runCli(['workflow', 'validate'], { env, cwd: project.dir });
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toContain(".svc/workflows/broken.yaml:6:18: nodes[0].depends_on: unknown node 'tset' (did you mean 'test'?)\n");
    expect(invalid.stdout).toMatch(/\n1 of 3 workflow files invalid \(2 errors\)\n$/);
  });

  it('with no file outside a project, is a usage error naming what it looked for (exit 2)', async () => {
    const bare = await makeProject({ bare: true });
    try {
      const result = await runCli(['workflow', 'validate'], { env, cwd: bare.dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`no .svc/workflows/ in ${bare.dir}`);
    } finally {
      await bare.remove();
    }
  });
});
