import type { Kysely } from 'kysely';
import type { RequestContext } from '../../../platform/request-context.js';
import type { Database } from '../../../storage/schema.js';
import type { SecurityEvents } from '../../security-events/index.js';
import { pruneRetiredRefreshTokens, revokeReusedGrant } from './store.js';

// RFC 9700 §4.14.2 reuse detection, shared by the refresh grant and token exchange: a refresh token
// that a rotation or an exchange replaced is kept (retired) a while, and presenting it again ends
// its grant.

/** Retired refresh tokens past their keeping time are pruned by a rotation at most this often (per process). */
export const RETIRED_PRUNE_EVERY_MS = 60 * 60 * 1000;

export class RefreshReuse {
  private lastRetiredPrune = Number.NEGATIVE_INFINITY;

  /** `securityEvents`: where a detected reuse is recorded for the account (account.oauth_refresh_token_reused). */
  constructor(private readonly db: Kysely<Database>, private readonly securityEvents?: SecurityEvents) {}

  /**
   * A refresh token that a rotation or a token exchange replaced, presented again, means someone
   * holds a copy. Its grant ends (refresh and access tokens, in one transaction, with the account's
   * security event); the caller then answers as for any unknown token, giving no signal.
   */
  async revokeIfReused(hash: string, ctx: Pick<RequestContext, 'ip'> | undefined): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const reused = await revokeReusedGrant(trx, hash);
      if (reused && ctx && this.securityEvents) {
        await this.securityEvents.record(trx, reused.uid, {
          name: 'account.oauth_refresh_token_reused', ctx, verified: false, additionalInfo: { clientId: reused.clientId },
        });
      }
    });
  }

  /**
   * Retired rows older than RETIRED_REFRESH_KEEP_MS go, piggybacked on a rotation at most once per
   * RETIRED_PRUNE_EVERY_MS, after the rotation committed (a failed prune must not cost the client the
   * tokens just issued: it is retried at the next interval).
   */
  async pruneRetired(now: number): Promise<void> {
    if (now - this.lastRetiredPrune < RETIRED_PRUNE_EVERY_MS) return;
    this.lastRetiredPrune = now;
    await pruneRetiredRefreshTokens(this.db, now).catch(() => {
      this.lastRetiredPrune = Number.NEGATIVE_INFINITY;
    });
  }
}
