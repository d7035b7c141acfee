import type { FastifyError, FastifyInstance } from 'fastify';

/** An error that is the caller's to fix (or to know about), answered in GitBook's error shape. */
export class HttpError extends Error {
  readonly statusCode: number;
  constructor(statusCode: number, message: string) {
    super(message);
    this.statusCode = statusCode;
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message = 'Authentication required: send "Authorization: Bearer <token>"') => new HttpError(401, message);
export const forbidden = (message: string) => new HttpError(403, message);
export const notFound = (what: string) => new HttpError(404, `${what} not found`);
export const conflict = (message: string) => new HttpError(409, message);
export const unavailable = (message: string) => new HttpError(503, message);

export function errorBody(code: number, message: string) {
  return { error: { code, message } };
}

/** One error path for the whole API: every failure leaves as `{"error":{"code","message"}}`. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) {
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
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send(errorBody(500, 'Internal server error'));
  });
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(errorBody(404, `No route ${request.method} ${request.url.split('?')[0]}`));
  });
}
