import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RenderedBash } from '../../../workflows/index.js';

/**
 * Linux refuses one argv string over 128 KiB (MAX_ARG_STRLEN), and one environment string too; a
 * longer script runs from a temporary file.
 */
const MAX_INLINE_SCRIPT_BYTES = 100 * 1024;

/**
 * The outputs a script expands (`SVC_OUTPUT_<id>`) travel in its environment while they are small;
 * past these a value goes through a file instead — the environment has a per-string limit, and
 * all of it counts against the limit of arguments and environment together (ARG_MAX).
 */
const MAX_ENV_VALUE_BYTES = 64 * 1024;
const MAX_ENV_VALUES_BYTES = 512 * 1024;

export interface PreparedScript {
  /** bash's arguments: `-c SCRIPT`, or a script file. */
  args: string[];
  /** The outputs in the environment, and the files of the others (`SVC_OUTPUT_<id>_FILE`). */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/**
 * `rendered` made ready for bash (docs/decisions.md, "Values as data"). A value held in a file is
 * read into its variable by a prelude on the script's first line (`read -r -d ''` keeps it
 * verbatim, trailing newlines too), so the script's line numbers stay those the author wrote.
 */
export async function prepareBashScript(rendered: RenderedBash): Promise<PreparedScript> {
  const env: Record<string, string> = {};
  const inFiles: Array<[string, string]> = [];
  let total = 0;
  for (const [name, value] of Object.entries(rendered.values)) {
    const bytes = Buffer.byteLength(value);
    if (bytes <= MAX_ENV_VALUE_BYTES && total + bytes <= MAX_ENV_VALUES_BYTES) {
      env[name] = value;
      total += bytes;
    } else inFiles.push([name, value]);
  }
  let script = rendered.script;
  let dir: string | undefined;
  const temporary = async () => (dir ??= await mkdtemp(join(tmpdir(), 'svc-script-')));
  if (inFiles.length) {
    const prelude: string[] = [];
    for (const [index, [name, value]] of inFiles.entries()) {
      const file = join(await temporary(), `value-${index}`);
      await writeFile(file, value, { mode: 0o600 });
      env[`${name}_FILE`] = file;
      prelude.push(`IFS= read -r -d '' ${name} <"$${name}_FILE" || :;`);
    }
    script = `${prelude.join(' ')} ${script}`;
  }
  const cleanup = async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  };
  if (Buffer.byteLength(script) <= MAX_INLINE_SCRIPT_BYTES) return { args: ['-c', script], env, cleanup };
  const file = join(await temporary(), 'script.sh');
  await writeFile(file, script, { mode: 0o600 });
  return { args: [file], env, cleanup };
}
