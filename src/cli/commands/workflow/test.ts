import { readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { ApiResponseError } from '../../../client/index.js';
import { CWD_OPTION, defineCommand } from '../../define-command.js';
import { CliError, EXIT } from '../../exit-codes.js';
import { printJson, styler } from '../../output.js';
import { cwdOption } from './_shared.js';

/** Where a workflow's fixture is looked for without `--fixture` (docs/workflows.md, "Testing a workflow"). */
const defaultFixture = (cwd: string, name: string) => join(cwd, '.svc', 'tests', `${name}.yaml`);

/** The fixture's text and the name its errors carry; none when the default file does not exist. */
async function readFixture(cwd: string, name: string, given: string | undefined): Promise<{ fixture?: string; fixtureName?: string }> {
  const file = given !== undefined ? resolve(given) : defaultFixture(cwd, name);
  // Named in errors as the user would type it: relative to here when inside, else absolute.
  const shown = relative(process.cwd(), file);
  try {
    return { fixture: await readFile(file, 'utf8'), fixtureName: shown && !shown.startsWith('..') ? shown : file };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (given === undefined && code === 'ENOENT') return {};
    throw new CliError(`${given ?? file}: cannot read the fixture: ${code ?? (error as Error).message}`);
  }
}

/**
 * `svc workflow test <name> [--fixture <file>] [--keep]`: the workflow runs for real with its
 * agents answered from the fixture (no agent starts, nothing is spent) and its gates decided by
 * it. Exit 0 when every expectation holds; 1 with each broken one on its own line, or with each
 * problem of an invalid fixture as `file:line:col: message`.
 */
export default defineCommand({
  args: [['<workflow>', 'workflow name']],
  options: {
    fixture: ['--fixture <file>', 'the fixture (YAML: message, nodes, approvals, expect); default .svc/tests/<name>.yaml when it exists'],
    keep: ['--keep', 'keep the test run afterwards (it is deleted otherwise)'],
    cwd: CWD_OPTION,
  },
  run: async (cmd, [name], options) => {
    const cwd = cwdOption(options.cwd);
    const input = { ...(await readFixture(cwd, name, options.fixture)), cwd, keep: Boolean(options.keep) };
    let result;
    try {
      result = await cmd.client().workflows.test(name, input);
    } catch (error) {
      if (!(error instanceof ApiResponseError) || error.error !== 'invalid_fixture') throw error;
      if (cmd.globals.json) printJson(cmd.io, error.body);
      else for (const line of (error.body.errors as string[] | undefined) ?? [error.message]) cmd.io.err(`${line}\n`);
      return EXIT.failed;
    }
    if (cmd.globals.json) {
      printJson(cmd.io, result);
      return result.passed ? EXIT.ok : EXIT.failed;
    }
    const paint = await styler(cmd.io);
    const where = `run ${result.runId} ${result.status}${result.kept ? ', kept' : ', deleted'}`;
    if (result.passed) {
      cmd.io.out(`${paint.green('ok')}: ${name}: every expectation holds (${where})\n`);
      return EXIT.ok;
    }
    for (const failure of result.failures) cmd.io.out(`${failure}\n`);
    const n = result.failures.length;
    cmd.io.err(`${paint.red('FAIL')}: ${name}: ${n} expectation${n === 1 ? '' : 's'} broken (${where})\n`);
    return EXIT.failed;
  },
});
