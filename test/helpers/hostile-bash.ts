// Hostile values and a real bash to run them with, for the tests of outside values in bash
// scripts (docs/workflows.md, "Values from outside in bash"): a payload leaves a `pwned-*` file in
// the working directory when bash runs it.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { findBashOutputRefs, renderBash, type RenderedBash } from '../../src/workflows/references.js';

/** Hostile values: each leaves a `pwned-*` file in the working directory if bash runs it. */
export const PAYLOADS = [
  'a[$(touch pwned-index)]',
  // No space: one word even where bash splits the value (read -a, an unquoted expansion).
  'a[$(touch${IFS}pwned-ifs)]',
  // An operator for `[` once split: -v evaluates the index.
  '-v a[$(touch${IFS}pwned-test)]',
  // A compound assignment, for a value declare -a re-reads.
  '(a[$(touch${IFS}pwned-decl)]=1)',
  '$(touch pwned-subst)',
  '`touch pwned-backtick`',
  './evil',
  'touch pwned-word',
  "x'; touch pwned-quote; '",
  "__import__('os').system('touch pwned-python')",
  // Program text for sed (GNU's e command) and awk.
  '1e touch pwned-sed',
  'BEGIN { system("touch pwned-awk") }',
  // Options, once a program reads the value as one, or once an unquoted value splits.
  '--upload-pack=touch pwned-upload',
  '. -exec touch pwned-find ;',
  'alias.x=!touch pwned-git',
  // An option of a builtin, attached to its value (printf -va[…] names an element).
  '-va[$(touch${IFS}pwned-opt)]',
];

/** A directory to run hostile scripts in, with a program `./evil` that leaves a marker. */
export function hostileDir(prefix: string): {
  dir: string;
  markers(): string[];
  run(rendered: RenderedBash, value: string): number | null;
  /** What a script svc accepts prints for the value 7 as `$x.output` and every outside variable, after running it with each hostile value: none may leave a marker. */
  printsSafely(script: string): string;
  remove(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(dir, 'evil'), '#!/bin/sh\ntouch pwned-evil\n');
  chmodSync(join(dir, 'evil'), 0o755);
  return {
    dir,
    /** The markers left since the last call, removed. */
    markers() {
      const found = readdirSync(dir).filter((name) => name.startsWith('pwned'));
      for (const name of found) rmSync(join(dir, name));
      return found;
    },
    /** Runs a rendered script with bash in `dir`, the outside variables set to `value`; returns the exit status. */
    run(rendered, value) {
      const env = {
        ...rendered.values,
        PATH: process.env.PATH ?? '',
        ARGUMENTS: value,
        USER_MESSAGE: value,
        WEBHOOK_IDEMPOTENCY_KEY: value,
        WEBHOOK_EVENT: value,
        TRIGGER_PAYLOAD: value,
      };
      return spawnSync('bash', ['--norc', '--noprofile', '-c', rendered.script], { cwd: dir, env, stdio: ['ignore', 'ignore', 'ignore'], timeout: 5000 })
        .status;
    },
    printsSafely(script) {
      for (const payload of PAYLOADS) {
        this.run(renderBash(script, { x: payload }), payload);
        expect(this.markers(), `${script} with ${payload}`).toEqual([]);
      }
      const rendered = renderBash(script, { x: '7' });
      return spawnSync('bash', ['--norc', '--noprofile', '-c', rendered.script], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', ARGUMENTS: '7', WEBHOOK_IDEMPOTENCY_KEY: '7', ...rendered.values },
        encoding: 'utf8',
      }).stdout;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** What svc would run without its checks: every live `$x.output` an expansion of its variable, as renderBash makes it, nothing refused. */
export function renderUnchecked(script: string, value: string): RenderedBash {
  let out = '';
  let copied = 0;
  for (const ref of findBashOutputRefs(script)) {
    if (ref.context === 'comment' || ref.context === 'escaped') continue;
    const word = ref.context === 'double-quoted' ? '${SVC_OUTPUT_x}' : ref.context === 'single-quoted' ? `'"\${SVC_OUTPUT_x}"'` : '"${SVC_OUTPUT_x}"';
    out += script.slice(copied, ref.start) + word;
    copied = ref.end;
  }
  return { script: out + script.slice(copied), values: { SVC_OUTPUT_x: value } };
}
