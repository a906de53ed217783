import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** What Node's parser errors become: the status Node itself would send, and our code (docs/decisions.md, Errors). */
function answerFor(code: string | undefined): [number, string, string] {
  if (code === 'HPE_HEADER_OVERFLOW') return [431, 'request_header_too_large', 'The request headers are too large.'];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'request_timeout', 'The request did not arrive in time.'];
  return [400, 'invalid_request', 'The request is not valid HTTP.'];
}

/**
 * Requests Node's HTTP parser rejects (a bad Content-Length, oversized headers, garbage) never
 * reach h3, and Node answers them with an empty body. Answer them with the contract's JSON error
 * body instead, so every non-2xx answer has the same shape.
 */
export function answerParserErrorsAsJson(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, code, message] = answerFor(error.code);
    const body = JSON.stringify({ error: code, message });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json;charset=UTF-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}
