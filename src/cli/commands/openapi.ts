import { packageVersion } from '../../shared/version.js';
import type { CommandRun } from '../program.js';

/** `svc openapi`: the document is built from the route table, so no server is needed. */
const openapi: CommandRun = async (cmd) => {
  const { openApiDocument } = await import('../../runtime.js');
  cmd.io.out(`${JSON.stringify(await openApiDocument(packageVersion()), null, 2)}\n`);
};

export default openapi;
