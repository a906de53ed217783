// Issue 32: ora divides by the terminal's width at every frame, so a terminal resized to 0 columns
// while `svc run` spins would send it into an endless clear. The spinner stops for good, and the
// run's progress goes on as plain lines. In process, on a stand-in terminal that ora draws on.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/client/index.js';
import { RunPrinter } from '../../src/cli/commands/run/_printer.js';
import { testIO } from '../../src/cli/test-io.js';
import { sleep } from '../helpers/runs.js';

/** stderr as a terminal 80 columns wide: what ora needs to draw (cursor moves as escapes). */
function terminal(): PassThrough & { columns: number; isTTY: true } {
  const stream = Object.assign(new PassThrough(), {
    isTTY: true as const,
    columns: 80,
    rows: 24,
    cursorTo: () => true,
    moveCursor: () => true,
    clearLine: () => true,
  });
  stream.resume();
  return stream;
}

const started = (nodeId: string) => ({ type: 'node_started', runId: 'run_x', nodeId, at: new Date().toISOString() }) as unknown as StreamEvent;

describe('svc run on a terminal resized to 0 columns', () => {
  it('stops the spinner and prints a line per node started from then on', async () => {
    const stderr = terminal();
    const io = { ...testIO({ tty: true }), stderr, isStderrTTY: true, canSpin: true };
    const printer = await RunPrinter.create(io, { verbose: false, quiet: false });
    printer.handle(started('first'));
    // With a spinner, a node's start is the spinner's text, not a line.
    expect(io.stdoutText()).toBe('');
    stderr.columns = 0;
    stderr.emit('resize');
    printer.handle(started('second'));
    expect(io.stdoutText()).toBe('second started\n');
    // Several of ora's frames (80 ms each) get their chance to draw; none may, or this test hangs.
    await sleep(300);
    printer.close();
    expect(io.stdoutText()).toBe('second started\n');
  });
});
