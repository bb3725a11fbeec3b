import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../core/errors.ts';
import { databaseUnavailable } from './unavailable.ts';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
const sqlstate = (code: string) => Object.assign(new pg.DatabaseError('server says no', 10, 'error'), { code });

describe('databaseUnavailable', () => {
  it('recognises a refused connection, a dropped one and a server shutting down, along the cause chain', () => {
    for (const err of [
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      new Error('Connection terminated unexpectedly'),
      sqlstate('57P01'),
      sqlstate('57P03'),
      sqlstate('08006'),
      new Error('query failed', { cause: new Error('Connection terminated unexpectedly') }),
    ]) {
      const mapped = databaseUnavailable(err);
      expect(mapped, String(err)).toBeInstanceOf(UnavailableError);
      expect(mapped?.message).toMatch(/^database unavailable: /);
    }
    expect(databaseUnavailable(Object.assign(new AggregateError([], ''), { code: 'ECONNREFUSED' }))?.message).toBe(
      'database unavailable: ECONNREFUSED',
    );
  });

  it('leaves other errors alone (a constraint violation, a bug)', () => {
    expect(databaseUnavailable(sqlstate('23505'))).toBeUndefined();
    expect(databaseUnavailable(new TypeError('x is undefined'))).toBeUndefined();
    expect(databaseUnavailable('a string')).toBeUndefined();
  });
});
