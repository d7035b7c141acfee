import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { isDatabaseUnavailable, isTransientConflict } from '../db/health.ts';

/** An error that is the caller's to fix (or to know about), answered in GitBook's error shape. */
export class HttpError extends Error {
  readonly statusCode: number;
  /** Sent as Retry-After (a 429 or 503 that knows when trying again may work). */
  retryAfterSeconds?: number;
  constructor(statusCode: number, message: string) {
    super(message);
    this.statusCode = statusCode;
  }
}

/**
 * Whether `error` refuses the request (an HttpError below 500) rather than reports a failure: a
 * `.catch` that turns refusals into another answer lets everything else (the database being
 * unavailable, a bug) go on as it is.
 */
export const isRefusal = (error: unknown): error is HttpError => error instanceof HttpError && error.statusCode < 500;

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message = 'Authentication required: send "Authorization: Bearer <token>"') => new HttpError(401, message);
export const forbidden = (message: string) => new HttpError(403, message);
export const notFound = (what: string) => new HttpError(404, `${what} not found`);
export const conflict = (message: string) => new HttpError(409, message);
export const unavailable = (message: string) => new HttpError(503, message);

export function errorBody(code: number, message: string) {
  return { error: { code, message } };
}

/** Seconds a 503 asks the client to wait before trying again (Retry-After). */
export const RETRY_AFTER_SECONDS = 5;

/**
 * One error path for the whole API: every failure leaves as `{"error":{"code","message"}}`, and
 * every 503 carries Retry-After. Requires Fastify's `return503OnClosing: false`: once the server
 * is closing, requests still arriving on open keep-alive connections are refused here, in the
 * error shape, and their connection is closed.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    return reply
      .status(503)
      .header('connection', 'close')
      .header('retry-after', String(RETRY_AFTER_SECONDS))
      .send(errorBody(503, 'The server is shutting down; retry'));
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) {
      if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
      else if (error.statusCode === 503) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      return reply.status(error.statusCode).send(errorBody(error.statusCode, error.message));
    }
    if (error.validation) {
      const message = error.validation
        .map((v) => {
          const where = `${error.validationContext ?? 'request'}${v.instancePath ? v.instancePath.replace(/\//g, '.') : ''}`;
          const missing = (v.params as { missingProperty?: string })?.missingProperty;
          const extra = (v.params as { additionalProperty?: string })?.additionalProperty;
          if (missing) return `${where}.${missing} is required`;
          if (extra) return `${where}.${extra} is not allowed`;
          return `${where} ${v.message}`;
        })
        .join('; ');
      return reply.status(400).send(errorBody(400, message));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.status(status).send(errorBody(status, error.message));
    }
    // The database is restarting, down or out of connections: trying again later may work.
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return reply
        .status(503)
        .header('retry-after', String(RETRY_AFTER_SECONDS))
        .send(errorBody(503, 'The service is temporarily unavailable; retry later'));
    }
    // A transaction PostgreSQL gave up on for a concurrent one: nothing was written; sending it again may work.
    if (isTransientConflict(error)) {
      request.log.warn({ err: error }, 'transaction collided with a concurrent one');
      return reply
        .status(503)
        .header('retry-after', '1')
        .send(errorBody(503, 'The request collided with a concurrent change and was not applied; send it again'));
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send(errorBody(500, 'Internal server error'));
  });
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(errorBody(404, `No route ${request.method} ${request.url.split('?')[0]}`));
  });
}

/** Longest path parameter the router accepts; a longer one is answered 414 before routing. */
export const MAX_PARAM_LENGTH = 1024;

/**
 * Failures of the router itself, before any route or hook runs (Fastify's `frameworkErrors`): a
 * path parameter over {@link MAX_PARAM_LENGTH} characters (414), a malformed percent-escape in the
 * path (400). They answer in the error shape like everything else.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  let status: number;
  let message: string;
  switch (error.code) {
    case 'FST_ERR_MAX_PARAM_LENGTH':
      status = 414;
      message = `A path parameter is longer than ${MAX_PARAM_LENGTH} characters`;
      break;
    case 'FST_ERR_BAD_URL':
      status = 400;
      message = 'The request path is not a valid URL (malformed percent-escape)';
      break;
    default:
      status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
      message = status === 500 ? 'Internal server error' : error.message;
  }
  void reply.status(status).send(errorBody(status, message));
}

/**
 * Requests Node's HTTP parser rejects (malformed request line or headers, headers too large, a
 * client too slow to send them): answered on the raw socket, still in the error shape.
 */
export const clientErrorHandler: NonNullable<FastifyServerOptions['clientErrorHandler']> = (
  error: Error & { code?: string },
  socket: Socket,
) => {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  let status = 400;
  let message = 'The request could not be parsed as HTTP';
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    message = 'The request took too long to arrive';
  } else if (error.code === 'HPE_HEADER_OVERFLOW') {
    status = 431;
    message = 'The request headers are too large';
  }
  if (socket.writable) {
    const body = JSON.stringify(errorBody(status, message));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
};
