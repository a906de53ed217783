// Values from outside through the real server (issue 19, section 1): a signed webhook delivery and
// a run message whose value reaches a bash node. The workflow — `(( $num.output > 0 ))`
// on a payload field — is refused, so its trigger is never registered; the forms validation
// accepts run nothing a hostile payload, key or message brings.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROMPT_VARIABLES } from '../../src/workflows/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeProject, withCwd, type Project } from '../helpers/workflow-project.js';
import { deliver, registerTriggers, SECRET } from '../helpers/webhooks.js';

let server: TestServer;
let project: Project;
let markers: string;
let counter = 0;

/** A node printing the payload's `n` field, read from the exact bytes in $TRIGGER_PAYLOAD_FILE. */
const PRINT_N = `node -e 'const p = JSON.parse(require("fs").readFileSync(process.env.TRIGGER_PAYLOAD_FILE, "utf8")); process.stdout.write(String(p.n))'`;

function workflow(name: string, slug: string, nodes: string[]): string {
  return [
    `name: ${name}`,
    'description: reads a number from the payload',
    'nodes:',
    '  - id: num',
    `    bash: ${JSON.stringify(PRINT_N)}`,
    ...nodes,
    'triggers:',
    '  webhook:',
    `    - { event: push, slug: ${slug}, secret_env: PUSH_SECRET, idempotency_key: delivery_id }`,
  ].join('\n');
}

const block = (id: string, lines: string[]) => [`  - id: ${id}`, '    depends_on: [num]', '    bash: |', ...lines.map((line) => `      ${line}`)];

/** Hostile values for a payload field, a delivery key or a message; each names its own marker file. */
const hostile = () => {
  const n = counter++;
  return [`a[$(touch ${markers}/index-${n})]`, `$(touch ${markers}/subst-${n})`, `\`touch ${markers}/backtick-${n}\``];
};

beforeAll(async () => {
  markers = await mkdtemp(join(tmpdir(), 'svc-markers-'));
  project = await makeProject();
  // The workflow: a payload field in arithmetic.
  await project.write('numeric.yaml', workflow('numeric', 'numeric', block('gate', ['(( $num.output > 0 )) && echo positive'])));
  await project.write('nested.yaml', workflow('nested', 'nested', block('shell', ['bash -c "echo $num.output"'])));
  await project.write('keyed.yaml', workflow('keyed', 'keyed', block('key', ['(( WEBHOOK_IDEMPOTENCY_KEY > 0 )) && echo positive'])));
  await project.write('copied.yaml', workflow('copied', 'copied', block('gate', ['n=$num.output', 'echo $(( n + 1 ))'])));
  // The same, written as the validation advice says: copied and checked to be a number first.
  await project.write(
    'checked.yaml',
    workflow('checked', 'checked', [
      ...block('gate', ['n=$num.output', '[[ $n =~ ^[0-9]+$ ]] || exit 1', '(( n > 0 )) && echo positive']),
      ...block('key', ['k=$WEBHOOK_IDEMPOTENCY_KEY', '[[ $k =~ ^[0-9]+$ ]] || exit 2', 'echo $(( k + 1 ))']),
    ]),
  );
  await project.write(
    'doubled.yaml',
    [
      'name: doubled',
      'description: doubles the message',
      'nodes:',
      '  - id: twice',
      '    bash: |',
      '      m=$ARGUMENTS',
      '      [[ $m =~ ^[0-9]+$ ]] || exit 1',
      '      echo $(( m * 2 ))',
    ].join('\n'),
  );
  server = await startTestServer({ cwd: project.dir, env: { PUSH_SECRET: SECRET } });
  await registerTriggers(server, project.dir);
});
afterAll(async () => {
  await server?.stop();
  await project?.remove();
  await rm(markers, { recursive: true, force: true });
});

const noMarkers = async () => expect(await readdir(markers)).toEqual([]);
const push = (fields: Record<string, unknown>, key: unknown = `d-${Date.now()}-${counter++}`) => JSON.stringify({ event: 'push', delivery_id: key, ...fields });

describe('a workflow that would run a payload value as code', () => {
  it('is refused at discovery, with the reason, and its trigger is not registered', async () => {
    const { body } = await server.json('GET', withCwd('/api/workflows', project.dir));
    const errors = (body.errors as { filename: string; error: string }[]).map((entry) => `${entry.filename.split('/').pop()}: ${entry.error}`).join('\n');
    expect(errors).toContain('numeric.yaml');
    expect(errors).toContain('$num.output cannot be used in arithmetic');
    expect(errors).toContain('bash -c runs');
    expect(errors).toContain('$WEBHOOK_IDEMPOTENCY_KEY holds a value from outside and cannot be used in (( … ))');
    expect(errors).toContain('n cannot be used in $(( … ))');
    expect(body.workflows.map((w: { name: string }) => w.name)).not.toContain('numeric');
  });

  it('runs nothing when a signed delivery carries code in the field or the key', async () => {
    for (const slug of ['numeric', 'nested', 'copied']) {
      for (const value of hostile()) {
        const answer = await deliver(server, slug, push({ n: value }));
        expect(answer.status).toBe(404);
        expect(answer.body.error).toBe('webhook_trigger_not_found');
      }
    }
    for (const key of hostile()) expect((await deliver(server, 'keyed', push({ n: 1 }, key))).status).toBe(404);
    await noMarkers();
  });

  it('cannot be saved through the API either', async () => {
    const definition = workflow('numeric2', 'numeric2', block('gate', ['(( $num.output > 0 ))']));
    const { status, body } = await server.json('PUT', withCwd('/api/workflows/numeric2', project.dir), { definition });
    expect(status).toBe(422);
    expect(body.error).toBe('invalid_workflow');
    expect(body.errors.join('\n')).toContain('$num.output cannot be used in arithmetic');
    expect(existsSync(join(project.workflowsDir, 'numeric2.yaml'))).toBe(false);
  });
});

describe('the checked form', () => {
  it('runs nothing a hostile payload field or delivery key brings: the check fails the node', async () => {
    for (const value of hostile()) {
      const answer = await deliver(server, 'checked', push({ n: value }, `${counter++}`));
      expect(answer.status).toBe(202);
      const run = await server.ctx.engine.waitUntilSettled(answer.body.run_id);
      expect(run.status).toBe('failed');
      expect(run.nodes.gate?.status).toBe('failed');
      expect(run.nodes.gate?.error).toContain('exited with code 1');
    }
    for (const key of hostile()) {
      const answer = await deliver(server, 'checked', push({ n: 3 }, key));
      expect(answer.status).toBe(202);
      const run = await server.ctx.engine.waitUntilSettled(answer.body.run_id);
      expect(run.nodes.gate?.output).toBe('positive');
      expect(run.nodes.key?.error).toContain('exited with code 2');
    }
    await noMarkers();
  });

  it('works with a number, and every variable the run gets is one svc knows the source of', async () => {
    const answer = await deliver(server, 'checked', push({ n: 5 }, 41));
    expect(answer.status).toBe(202);
    const run = await server.ctx.engine.waitUntilSettled(answer.body.run_id);
    expect(run.status).toBe('completed');
    expect(run.nodes.gate?.output).toBe('positive');
    expect(run.nodes.key?.output).toBe('42');
    // A variable outside this list would have no classification as outside or svc's own (src/workflows/run-variables.ts).
    expect(Object.keys(run.variables).filter((name) => !(PROMPT_VARIABLES as readonly string[]).includes(name))).toEqual([]);
  });

  it('runs nothing a hostile run message brings', async () => {
    for (const message of hostile()) {
      const { status, body } = await server.json('POST', '/api/workflows/doubled/run', { message, cwd: project.dir });
      expect(status).toBe(202);
      const run = await server.ctx.engine.waitUntilSettled(body.runId);
      expect(run.status).toBe('failed');
    }
    const { body } = await server.json('POST', '/api/workflows/doubled/run', { message: '21', cwd: project.dir });
    const run = await server.ctx.engine.waitUntilSettled(body.runId);
    expect(run.nodes.twice?.output).toBe('42');
    await noMarkers();
  });
});
