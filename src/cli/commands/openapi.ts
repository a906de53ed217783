import { packageVersion } from '../../shared/version.js';
import { defineCommand } from '../define-command.js';

/** `svc openapi`: the document is built from the route table, so no server is needed. */
export default defineCommand({
  run: async (cmd) => {
    const { openApiDocument } = await import('../../runtime.js');
    cmd.io.out(`${JSON.stringify(await openApiDocument(packageVersion()), null, 2)}\n`);
  },
});
