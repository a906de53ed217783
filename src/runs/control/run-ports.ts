/**
 * `$SVC_PORT` (docs/decisions.md, "Worktree setup and $SVC_PORT"): a free TCP port for each
 * executing run, for its dev server or its compose project. The kernel picks a free one (bind port
 * 0 on 127.0.0.1, read it, close); a port handed to a run still executing in this process is never
 * handed out again, so two runs at once never share one. A port is free when handed out, not
 * guaranteed to stay free: anything on the machine may bind it meanwhile.
 */

import { createServer, type AddressInfo } from 'node:net';

/** Ports of runs executing in this process now. */
const handedOut = new Set<number>();

/** Tries before giving up: the kernel cycles through its ephemeral range, so a repeat is rare. */
const MAX_TRIES = 100;

export interface PortReservation {
  readonly port: number;
  /** The run stopped executing: its port may go to another run. Idempotent. */
  release(): void;
}

function kernelFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A free port no other run of this process holds, until `release`. */
export async function reservePort(): Promise<PortReservation> {
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const port = await kernelFreePort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    let released = false;
    return {
      port,
      release: () => {
        if (released) return;
        released = true;
        handedOut.delete(port);
      },
    };
  }
  throw new Error(`no free TCP port for $SVC_PORT after ${MAX_TRIES} tries`);
}
