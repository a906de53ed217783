import type { Ora } from 'ora';
import { terminalWidth, type IO } from './io.js';

/** A spinner on stderr (ora), as the commands use it. */
export type Spinner = Pick<Ora, 'text' | 'start' | 'stop' | 'succeed' | 'isSpinning'>;

/**
 * A spinner where one can be drawn (`io.canSpin`: a terminal that reports its width), else
 * undefined, and the caller prints plain lines. ora counts the lines it must clear by dividing by
 * the terminal's width, read at every frame: a terminal resized to 0 columns while it spins would
 * send it into an endless clear that blocks the process, signals included (issue 32). So the
 * resize stops it for good, and `onGone` tells the caller to print plain lines from then on.
 */
export async function createSpinner(io: IO, options: { text?: string; onGone?: () => void } = {}): Promise<Spinner | undefined> {
  if (!io.canSpin) return undefined;
  const { default: ora } = await import('ora');
  const stream = io.stderr as NodeJS.WriteStream;
  const spinner = ora({ stream, discardStdin: false, ...(options.text === undefined ? {} : { text: options.text }) });
  // Node updates `columns` and emits 'resize' in one step, so this runs before ora's next frame.
  const onResize = () => {
    if (terminalWidth(stream) !== undefined) return;
    stream.off('resize', onResize);
    spinner.stop();
    // Disabled, ora writes `succeed()` and the like as plain lines.
    spinner.isEnabled = false;
    options.onGone?.();
  };
  stream.on('resize', onResize);
  return spinner;
}
