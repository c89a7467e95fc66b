/**
 * Which failures retry a whole batch (transient: the database or the network, not the rows) and
 * which isolate the site whose night caused them (issue 17, item 5): out of memory, a RangeError,
 * and Postgres classes 53 (resources, but too_many_connections) and XX (internal) follow what
 * one night asks for, so a retried batch would meet them again and again.
 */
import { describe, expect, it } from 'vitest';
import { DrizzleQueryError } from 'drizzle-orm';
import { isTransientDbError } from '../../../src/db/db-errors.js';

const pgError = (code: string, message = 'boom') => Object.assign(new Error(message), { code });

describe('isTransientDbError', () => {
  it.each([
    ['08006 connection_failure', pgError('08006'), true],
    ['40001 serialization_failure', pgError('40001'), true],
    ['40P01 deadlock_detected', pgError('40P01'), true],
    ['53300 too_many_connections', pgError('53300'), true],
    ['57P01 admin_shutdown', pgError('57P01'), true],
    ['ECONNRESET', pgError('ECONNRESET'), true],
    ['Connection terminated unexpectedly', new Error('Connection terminated unexpectedly'), true],
    ['53100 disk_full', pgError('53100'), false],
    ['53200 out_of_memory', pgError('53200', 'out of memory'), false],
    ['53400 configuration_limit_exceeded', pgError('53400'), false],
    ['XX000 internal_error', pgError('XX000'), false],
    ['XX001 data_corrupted', pgError('XX001'), false],
    ['RangeError: Invalid string length', new RangeError('Invalid string length'), false],
    ['a RangeError that mentions a timeout', new RangeError('Invalid time value: timeout'), false],
    ['JavaScript heap out of memory', new Error('JavaScript heap out of memory'), false],
    ['22003 numeric_value_out_of_range', pgError('22003'), false],
    ['23505 unique_violation', pgError('23505'), false],
    ['not an Error', 'Connection terminated', false],
    ['drizzle wrapping 57P01 admin_shutdown (a connection the server ended)', new DrizzleQueryError('select 1', [], pgError('57P01', 'terminating connection due to administrator command')), true],
    ['drizzle wrapping 23505 unique_violation', new DrizzleQueryError('insert ...', [], pgError('23505')), false],
    ['drizzle wrapping XX000 internal_error', new DrizzleQueryError('insert ...', [], pgError('XX000')), false],
  ])('%s -> %s', (_name, err, transient) => {
    expect(isTransientDbError(err)).toBe(transient);
  });
});
