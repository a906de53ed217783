import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Closing a node:http server waits for its connections, and Node's own idle check counts a
 * connection whose answer went out but whose request body was never read (a 413 to an oversized
 * chunked upload) as busy. Such a socket does not read, so it keeps no event loop alive either:
 * the process would end mid-shutdown. Here a connection is busy only while a response is being
 * written; closing ends every connection that is not, and each other one when its response ends.
 */
export function trackConnections(server: Server): { close(graceMs: number): Promise<void> } {
  const busy = new Map<Socket, number>();
  let closing = false;
  server.on('connection', (socket: Socket) => {
    busy.set(socket, 0);
    socket.once('close', () => busy.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (busy.get(socket) ?? 1) - 1;
      busy.set(socket, left);
      if (closing && left === 0) socket.destroy();
    });
  });
  return {
    close(graceMs) {
      closing = true;
      return new Promise<void>((resolve) => {
        // A response still being written after the grace period is cut (ref'd: the process waits for it).
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        for (const [socket, count] of busy) if (count === 0) socket.destroy();
      });
    },
  };
}
