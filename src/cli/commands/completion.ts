import { packageVersion } from '../../shared/version.js';
import { SHELLS, type Shell } from '../completion.js';
import { buildProgram, type CommandRun } from '../program.js';

const completion: CommandRun = async (cmd, [shell]) => {
  cmd.io.out(SHELLS[shell as Shell](buildProgram(packageVersion())));
};

export default completion;
