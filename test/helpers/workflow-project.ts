import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throwaway project directory with a `.svc/workflows/` folder (unless `bare`). */
export interface Project {
  dir: string;
  workflowsDir: string;
  commandsDir: string;
  /** Writes `.svc/workflows/<file>` and returns its absolute path. */
  write(file: string, text: string): Promise<string>;
  /** Writes `.svc/commands/<file>`. */
  writeCommand(file: string, text: string): Promise<string>;
  remove(): Promise<void>;
}

export async function makeProject(options: { bare?: boolean } = {}): Promise<Project> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-project-'));
  const workflowsDir = join(dir, '.svc', 'workflows');
  const commandsDir = join(dir, '.svc', 'commands');
  if (!options.bare) await mkdir(workflowsDir, { recursive: true });
  return {
    dir,
    workflowsDir,
    commandsDir,
    async write(file, text) {
      await mkdir(workflowsDir, { recursive: true });
      await writeFile(join(workflowsDir, file), text);
      return join(workflowsDir, file);
    },
    async writeCommand(file, text) {
      await mkdir(commandsDir, { recursive: true });
      await writeFile(join(commandsDir, file), text);
      return join(commandsDir, file);
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A small valid workflow; `extra` is appended as more top-level YAML (e.g. triggers). */
export function workflowYaml(name: string, options: { description?: string; extra?: string } = {}): string {
  return [
    `name: ${name}`,
    `description: ${options.description ?? `the ${name} workflow`}`,
    'nodes:',
    '  - id: first',
    '    bash: echo one',
    '  - id: second',
    '    prompt: "Summarize: $first.output"',
    '    depends_on: [first]',
    options.extra ?? '',
  ].join('\n');
}

/** `triggers:` YAML with one webhook trigger per slug. */
export function webhookTriggers(...slugs: string[]): string {
  return [
    'triggers:',
    '  webhook:',
    ...slugs.map((slug) => `    - { event: push, slug: ${slug}, secret_env: PUSH_SECRET, idempotency_key: delivery_id }`),
  ].join('\n');
}

export const BUNDLED_NAMES = ['address-review', 'assist', 'fix-ci', 'fix-issue', 'review', 'rework', 'smoke'];

export const withCwd = (path: string, cwd: string) => `${path}${path.includes('?') ? '&' : '?'}cwd=${encodeURIComponent(cwd)}`;
