import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorAnswer } from '../shared/error-answer.js';
import { DomainError } from '../shared/errors.js';

/**
 * What Node's parser errors become: our code, whose status is the one Node itself would send
 * (431, 408, 400), and the one error body (docs/contract.md, "Errors").
 */
function errorFor(code: string | undefined): DomainError {
  if (code === 'HPE_HEADER_OVERFLOW') return new DomainError('request_header_too_large', 'The request headers are too large.');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new DomainError('request_timeout', 'The request did not arrive in time.');
  return new DomainError('invalid_request', 'The request is not valid HTTP.');
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
    const answer = errorAnswer(errorFor(error.code));
    const { status } = answer;
    const body = JSON.stringify(answer.body);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json;charset=UTF-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}
