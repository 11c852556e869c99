import { sql, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../../storage/schema.js';
import type { SecondFactorPort } from '../sessions/index.js';

/**
 * The read port the sessions domain (a floor below) declares and this domain provides, as the
 * owner of the `totp` table: whether a session's account has an authenticator app turned on, read
 * inside the session lookup and inside the UPDATEs that confirm sessions by email. The totp row
 * is keyed by uid, at most one per account.
 */
export const secondFactorReads: SecondFactorPort = {
  join: (qb, uidColumn) =>
    (qb as unknown as SelectQueryBuilder<Database, 'totp', object>)
      .leftJoin('totp as t', (j) => j.onRef('t.uid', '=', uidColumn as 'totp.uid').on('t.enabled', '=', sql.lit(1)))
      .select('t.uid as second_factor_uid') as never,
  absent: (eb) => eb.not(eb.exists(
    eb.selectFrom('totp').select('totp.uid').whereRef('totp.uid', '=', 'session_tokens.uid').where('totp.enabled', '=', 1),
  )),
};
