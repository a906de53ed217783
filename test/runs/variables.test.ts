// Run variables and output passing with real bash: hostile text (quotes, `$(…)`, backticks, `; rm`,
// newlines) travels from node to node and from the message to the script without ever being run.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { cleanupAll, type Json, projectWithWorkflows, startRun, startServer, waitForRun } from '../helpers/runs.js';

/** Every trick that would run something if it were spliced into a script unquoted. */
const HOSTILE = [
  `it's "double" and 'single' quoted`,
  '$(touch PWNED_subshell) `touch PWNED_backtick`',
  '; rm keep.txt; touch PWNED_semicolon',
  "'; touch PWNED_quote_escape; echo '",
  '"; touch PWNED_dquote_escape; echo "',
  '&& touch PWNED_and || touch PWNED_or | tee PWNED_pipe > PWNED_redirect',
  '${HOME} $HOME $((1+1)) \\ backslash \\n * ? [a-z] ~',
  '  leading and trailing spaces  ',
].join('\n');

const LARGE = 200 * 1024;
const CAP = 64 * 1024;

let server: TestServer;
let project: string;

beforeAll(async () => {
  project = await projectWithWorkflows([
    {
      name: 'hostile',
      nodes: [
        // A prints the message it got through the environment, verbatim.
        { id: 'A', bash: `printf '%s\\n' "$ARGUMENTS"` },
        // B splices A's output as a bare word, C inside double quotes, D as an assignment.
        { id: 'B', bash: `printf '%s\\n' $A.output`, depends_on: ['A'] },
        { id: 'C', bash: `printf '%s\\n' "got: $A.output"`, depends_on: ['A'] },
        { id: 'D', bash: `v=$A.output; printf '%s\\n' "$v"`, depends_on: ['A'] },
        // E prints the script bash was given: a reference to A's output, never the output itself.
        { id: 'E', bash: `printf '%s' "$A.output" >/dev/null; printf '%s' "$BASH_EXECUTION_STRING"`, depends_on: ['A'] },
        // The script text is not substituted: a single-quoted $ARGUMENTS stays literal.
        { id: 'literal', bash: `printf '%s\\n' '$ARGUMENTS and $USER_MESSAGE'` },
        { id: 'env', bash: 'printenv ARGUMENTS; printf "%s" "---"; printenv USER_MESSAGE' },
      ],
    },
    {
      name: 'large',
      nodes: [
        // 200 KiB: beyond the 64 KiB cap of records and events, and beyond what Linux accepts as
        // one argv string (128 KiB), so splicing it into `bash -c <script>` alone cannot work.
        { id: 'big', bash: `head -c ${LARGE} /dev/zero | tr '\\0' x; echo; echo "it's the end"` },
        { id: 'count', bash: `printf '%s' $big.output | wc -c`, depends_on: ['big'] },
        { id: 'tail', bash: `printf '%s' "$big.output" | tail -n 1`, depends_on: ['big'] },
      ],
    },
    {
      name: 'vars',
      nodes: [
        { id: 'show', bash: 'printf "%s\\n" "$RUN_ID" "$WORKFLOW_NAME" "$ARTIFACTS_DIR" "$WORKSPACE_DIR" "$(pwd -P)"' },
        { id: 'later', bash: 'cat "$ARTIFACTS_DIR/show.out"; echo; echo ---; ls "$ARTIFACTS_DIR"', depends_on: ['show'] },
      ],
    },
  ]);
  await writeFile(join(project, 'keep.txt'), 'must survive\n');
  server = await startServer();
});
afterAll(cleanupAll);

const marks = () => readdirSync(project).filter((name) => name.startsWith('PWNED'));

describe('output passing with hostile content', () => {
  let run: Json;
  beforeAll(async () => {
    run = await waitForRun(server, await startRun(server, 'hostile', { message: HOSTILE, cwd: project }));
  });

  it('completes without running anything from the text', () => {
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(marks()).toEqual([]);
    expect(existsSync(join(project, 'keep.txt'))).toBe(true);
    expect(readFileSync(join(project, 'keep.txt'), 'utf8')).toBe('must survive\n');
  });

  it("A's output is the message exactly, and B's output is exactly A's", () => {
    expect(run.nodes.A.output).toBe(HOSTILE);
    expect(run.nodes.B.output).toBe(run.nodes.A.output);
    expect(run.nodes.C.output).toBe(`got: ${HOSTILE}`);
    expect(run.nodes.D.output).toBe(HOSTILE);
  });

  it('the script bash parses holds no byte of the output: only a quoted expansion of its variable', () => {
    expect(run.nodes.E.output).toBe(`printf '%s' "\${SVC_OUTPUT_A}" >/dev/null; printf '%s' "$BASH_EXECUTION_STRING"`);
    expect(run.nodes.E.output).not.toContain(HOSTILE);
  });

  it('the artifacts hold the same full outputs', () => {
    const artifacts = join(server.home, 'data', 'runs', run.id, 'artifacts');
    expect(readFileSync(join(artifacts, 'A.out'), 'utf8')).toBe(HOSTILE);
    expect(readFileSync(join(artifacts, 'B.out'), 'utf8')).toBe(HOSTILE);
  });

  it('$ARGUMENTS and $USER_MESSAGE reach bash only as environment variables', () => {
    expect(run.nodes.literal.output).toBe('$ARGUMENTS and $USER_MESSAGE');
    expect(run.nodes.env.output).toBe(`${HOSTILE}\n---${HOSTILE}`);
  });

  it('node_output events carry the text as it was printed', () => {
    const text = run.events
      .filter((e: Json) => e.type === 'node_output' && e.nodeId === 'B' && e.stream === 'stdout')
      .map((e: Json) => e.text)
      .join('');
    expect(text).toBe(`${HOSTILE}\n`);
  });
});

describe('large outputs', () => {
  it('are capped at 64 KiB on the record and in events, kept whole in artifacts, and passed whole to $id.output', async () => {
    const run = await waitForRun(server, await startRun(server, 'large', { message: '', cwd: project }));
    const full = `${'x'.repeat(LARGE)}\nit's the end`;
    expect(readFileSync(join(server.home, 'data', 'runs', run.id, 'artifacts', 'big.out'), 'utf8')).toBe(full);
    expect(run.nodes.big.status).toBe('completed');
    expect(run.nodes.big.output).toBe(full.slice(0, CAP));
    expect(run.nodes.big.outputTruncated).toBe(true);
    const streamed = run.events.filter((e: Json) => e.type === 'node_output' && e.nodeId === 'big');
    expect(streamed.reduce((n: number, e: Json) => n + Buffer.byteLength(e.text), 0)).toBe(CAP);
    expect(run.events.find((e: Json) => e.type === 'node_completed' && e.nodeId === 'big').output).toHaveLength(CAP);
    expect(run.status, JSON.stringify({ count: run.nodes.count, tail: run.nodes.tail })).toBe('completed');
    expect(Number(run.nodes.count.output.trim())).toBe(Buffer.byteLength(full));
    expect(run.nodes.tail.output).toBe("it's the end");
  });
});

describe('run variables', () => {
  it('RUN_ID, WORKFLOW_NAME, ARTIFACTS_DIR (holding <node>.out) and WORKSPACE_DIR = cwd', async () => {
    const runId = await startRun(server, 'vars', { message: 'm', cwd: project });
    const run = await waitForRun(server, runId);
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    const [id, workflow, artifacts, workspace, pwd] = (run.nodes.show.output as string).split('\n');
    expect(id).toBe(runId);
    expect(workflow).toBe('vars');
    expect(artifacts).toBe(join(server.home, 'data', 'runs', runId, 'artifacts'));
    expect(statSync(artifacts!).isDirectory()).toBe(true);
    expect(workspace).toBe(project);
    expect(pwd).toBe(realpathSync(project));
    // A later node reads the earlier node's full output from the artifacts directory.
    const [copied, listing] = (run.nodes.later.output as string).split('\n---\n');
    expect(copied).toBe(run.nodes.show.output);
    expect(listing!.split('\n')).toContain('show.out');
    expect(readFileSync(join(artifacts!, 'show.out'), 'utf8')).toBe(run.nodes.show.output);
    expect(readFileSync(join(artifacts!, 'later.out'), 'utf8')).toBe(run.nodes.later.output);
  });
});
