import { isAbsolute, resolve } from 'node:path';
import { defineCommand } from '../../define-command.js';
import { createSpinner } from '../../spinner.js';
import { printWorkspace } from './_print.js';

/** A URL to clone, or anything else as a directory (relative to where the command runs). */
const isUrl = (source: string) => /^(https|ssh|file|http):\/\//.test(source) || /^[^/\s]+@[^/\s]+:/.test(source) || /^[a-z][a-z0-9+.-]*::/i.test(source);

/** `svc workspace add <url|path>`: clone a repository, or register a directory. */
export default defineCommand({
  args: [['<source>', 'a repository URL (https://, ssh://, git@host:path, file://) or a local directory']],
  run: async (cmd, [source]) => {
    const input = isUrl(source) || source.startsWith('-') ? { url: source } : { path: isAbsolute(source) ? source : resolve(source) };
    // A clone can take a while: a spinner on a terminal that can draw one, nothing otherwise.
    const spinner = 'url' in input ? (await createSpinner(cmd.io, { text: `Cloning ${source}…` }))?.start() : undefined;
    try {
      const workspace = await cmd.client().workspaces.add(input);
      spinner?.succeed(`Registered workspace ${workspace.id}`);
      printWorkspace(cmd, workspace);
    } catch (error) {
      spinner?.stop();
      throw error;
    }
  },
});
