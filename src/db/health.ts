import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { db } from './kysely.ts';
import type { Em } from './orm.ts';

/** Round-trips one trivial query: resolves when the database answers (the readiness probe). */
export async function pingDatabase(em: Em): Promise<void> {
  await db(em)
    .selectNoFrom((eb) => eb.lit(1).as('one'))
    .execute();
}

/** Socket errors of a connection to the database that could not be made or was lost. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);

/**
 * SQLSTATEs of a server that is going away or not there yet: too_many_connections, admin_shutdown
 * (a fast or smart shutdown ending the session), crash_shutdown, cannot_connect_now (starting up,
 * shutting down, in recovery). Class 08, connection exceptions, is matched as a whole.
 */
const SERVER_CODES = new Set(['53300', '57P01', '57P02', '57P03']);

/** What the `pg` driver and its pool say, without a code, about a connection that broke or never came. */
const DRIVER_MESSAGES =
  /Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect/;

/**
 * Whether `error` says the database cannot be reached right now (it is restarting, down or out of
 * connections) rather than that the request or the code is wrong: the caller may retry later. It
 * looks through MikroORM's wrapping (which keeps the driver's `code`), `cause` and AggregateErrors.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 5 || error === null || typeof error !== 'object') return false;
  const { code, message, cause, errors } = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  if (typeof message === 'string' && DRIVER_MESSAGES.test(message)) return true;
  if (Array.isArray(errors) && errors.some((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}

/**
 * Whether `error` is PostgreSQL giving up on a transaction that collided with a concurrent one
 * (serialization_failure, deadlock_detected): nothing was written, and the same request may
 * succeed when sent again.
 */
export function isTransientConflict(error: unknown, depth = 0): boolean {
  if (depth > 5 || error === null || typeof error !== 'object') return false;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (code === '40001' || code === '40P01') return true;
  return isTransientConflict(cause, depth + 1);
}

/**
 * Whether `error` is a write refused by a unique index (unique_violation), as the entity manager
 * reports it or as the driver does for a typed query.
 */
export function isUniqueViolation(error: unknown, depth = 0): boolean {
  if (error instanceof UniqueConstraintViolationException) return true;
  if (depth > 5 || error === null || typeof error !== 'object') return false;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (code === '23505') return true;
  return isUniqueViolation(cause, depth + 1);
}
