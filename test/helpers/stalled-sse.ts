// An SSE client that stops reading, as `svc watch | less` does when paused: a raw TCP socket that
// sends the request, reads until the stream has opened, then never reads again. No HTTP client
// library, so nothing on this side drains the socket behind the test's back.
import { connect, type Socket } from 'node:net';

export interface StalledClient {
  socket: Socket;
  /** Whether the connection has ended (the server cut it, or `close()` was called). */
  closed(): boolean;
  close(): void;
}

/** Opens `path` on `url` and stops reading once the stream's `: connected` comment has arrived. */
export function openStalledClient(url: string, path: string, headers: Record<string, string> = {}): Promise<StalledClient> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let head = '';
    const readBuffer = Buffer.alloc(1024);
    // Reads into one small buffer, and stops reading for good (returning false pauses the socket)
    // once the stream is open: from then on the server's writes back up behind the kernel's
    // receive buffer, which stays small because this side never takes from it.
    const socket = connect({
      host: hostname,
      port: Number(port),
      onread: {
        buffer: readBuffer,
        callback: (bytes) => {
          head += readBuffer.toString('latin1', 0, bytes);
          if (!head.includes(': connected')) return true;
          socket.off('error', reject);
          socket.on('error', () => {}); // a reset from the server is what it should do to us
          resolve(client);
          return false;
        },
      },
    });
    let ended = false;
    socket.once('close', () => (ended = true));
    const client: StalledClient = { socket, closed: () => ended, close: () => socket.destroy() };
    socket.once('error', reject);
    socket.once('connect', () => {
      const lines = [
        `GET ${path} HTTP/1.1`,
        `Host: ${hostname}:${port}`,
        'Accept: text/event-stream',
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
  });
}
