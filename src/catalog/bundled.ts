/**
 * Where the workflows and commands that ship with svc live: `bundled/` at the package root,
 * listed in package.json `files`, so they are the same in a git checkout and an npm install.
 */

import { join } from 'node:path';
import { packageRoot } from '../shared/version.js';

export const BUNDLED_WORKFLOWS_DIR = join(packageRoot, 'bundled', 'workflows');
export const BUNDLED_COMMANDS_DIR = join(packageRoot, 'bundled', 'commands');

/** Project files live here under a project root (the request's cwd or a workspace). */
export const PROJECT_WORKFLOWS_DIR = join('.svc', 'workflows');
export const PROJECT_COMMANDS_DIR = join('.svc', 'commands');
