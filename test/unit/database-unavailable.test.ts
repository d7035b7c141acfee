import { describe, expect, it } from '@jest/globals';
import { DriverException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { isDatabaseUnavailable, isTransientConflict } from '../../src/db/health.ts';

/** An error as the `pg` driver makes them: a message and, from the server or the socket, a code. */
const pgError = (message: string, code?: string) => Object.assign(new Error(message), code === undefined ? {} : { code });

describe('telling a database that cannot be reached from other failures', () => {
  it.each([
    ['connection refused', pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['connection reset', pgError('read ECONNRESET', 'ECONNRESET')],
    ['admin_shutdown', pgError('terminating connection due to administrator command', '57P01')],
    ['crash_shutdown', pgError('terminating connection because of crash of another server process', '57P02')],
    ['cannot_connect_now', pgError('the database system is shutting down', '57P03')],
    ['too_many_connections', pgError('sorry, too many clients already', '53300')],
    ['connection_failure (class 08)', pgError('connection failure', '08006')],
    ['a connection that broke mid-query', pgError('Connection terminated unexpectedly')],
    ['a client left broken', pgError('Client has encountered a connection error and is not queryable')],
    ['a pool that could not connect in time', pgError('timeout exceeded when trying to connect')],
    ['MikroORM’s wrapping of admin_shutdown', new DriverException(pgError('terminating connection due to administrator command', '57P01'))],
    ['a cause', new Error('query failed', { cause: pgError('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED') })],
    [
      'an AggregateError of both addresses',
      new AggregateError([pgError('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], 'connect failed'),
    ],
  ])('%s is unavailability', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', new UniqueConstraintViolationException(pgError('duplicate key value violates unique constraint', '23505'))],
    ['a serialization failure', pgError('could not serialize access due to concurrent update', '40001')],
    ['a syntax error', pgError('syntax error at or near "selec"', '42601')],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('%s is not', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('telling a transaction that collided with a concurrent one', () => {
  it.each([
    ['a serialization failure', pgError('could not serialize access due to concurrent update', '40001')],
    ['a deadlock', pgError('deadlock detected', '40P01')],
    ['one wrapped as a cause', new Error('query failed', { cause: pgError('deadlock detected', '40P01') })],
  ])('%s is a transient conflict', (_, error) => {
    expect(isTransientConflict(error)).toBe(true);
  });

  it.each([
    ['a unique violation', pgError('duplicate key value violates unique constraint', '23505')],
    ['a refused connection', pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['nothing', undefined],
  ])('%s is not', (_, error) => {
    expect(isTransientConflict(error)).toBe(false);
  });
});
