import { randomHex } from '@tessera/protocol';
import { appError, type AppError } from '@tessera/errors';
import { SignJWT, jwtVerify } from 'jose';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { ScryptPool } from '../../crypto/scrypt-pool.js';
import type { RequestContext } from '../../platform/request-context.js';
import type { Database } from '../../storage/schema.js';
import type { Account, AccountRecords } from '../account-core/index.js';
import type { SecurityEvents } from '../security-events/index.js';
import type { Session, SessionsService } from '../sessions/index.js';
import { checkPasswordInput, newPassword, type PasswordInput } from './password.js';
import type { RelyingParties } from './relying-parties.js';
import type { SigninConfirmations } from './deps.js';
import type { Mailer } from '../../senders/mail/mailer.js';

// Stub accounts: a relying party (e.g. a subscription checkout) creates an account by email alone,
// gets an OAuth access token for it, and the person sets a password later — through the relying
// party (POST /account/set_password with that token) or through an emailed setup link
// (POST /account/finish_setup with the setup token).

/** The scopes of the access token a stub account is created with. */
export const STUB_SCOPES = ['profile:write', 'https://identity.mozilla.com/account/subscriptions'];
const SETUP_TOKEN_TYPE = 'fin+JWT';

export interface SetupDeps {
  db: Kysely<Database>;
  mailer: Mailer;
  /** Clients allowed to create stub accounts (ACCOUNT_STUB_CLIENT_IDS). */
  stubClientIds: readonly string[];
  /** Builds the link of the auth server's /finish_setup page. */
  setupLink(params: Record<string, string | undefined>): string;
  clock: Clock;
  scrypt: ScryptPool;
  records: AccountRecords;
  sessions: SessionsService;
  oauth: RelyingParties;
  confirmations: SigninConfirmations;
  securityEvents: SecurityEvents;
  secret: string;
  accessTokenTtlMs: number;
  setupTokenTtlMs: number;
  issuer: string;
}

export class AccountSetupService {
  private readonly key: Uint8Array;

  constructor(private readonly deps: SetupDeps) {
    this.key = new TextEncoder().encode(`account-setup:${deps.secret}`);
  }

  /**
   * POST /account/stub, for a confidential client on the allow-list that proves its secret. The
   * account gets no password and stays unconfirmed; the setup token that would confirm it goes only
   * to the mailbox (issue 9, hole 1), never to the caller. An address that any account holds,
   * confirmed or not, is refused: a stub never replaces someone's pending sign-up.
   */
  async stub(input: { email: string; clientId: string; clientSecret: string; wantsSetupToken?: boolean | undefined }, ctx: RequestContext) {
    const { db, clock, records, oauth, mailer } = this.deps;
    const clientId = input.clientId.toLowerCase();
    const client = await oauth.findClient(db, clientId);
    if (!client || client.publicClient || client.hashedSecret === null || !this.deps.stubClientIds.includes(clientId)) {
      throw appError('UNKNOWN_CLIENT_ID', { clientId: input.clientId }, 'Unknown client_id, or a client that may not create stub accounts (ACCOUNT_STUB_CLIENT_IDS)');
    }
    if (!oauth.clientSecretMatches(client, input.clientSecret)) throw appError('INCORRECT_CLIENT_SECRET', { clientId: input.clientId });
    const holder = await records.findByEmail(db, input.email);
    // The holder's own spelling of this address; never another address of that account (a secondary's primary).
    if (holder) throw appError('ACCOUNT_EXISTS', { email: holder.emailRecord.email });
    const now = clock.now();
    const uid = randomHex(16);
    const emailCode = randomHex(16);
    const account: Account = {
      uid, email: input.email, passwordEmail: null, emailCode, emailVerified: false, kA: randomHex(32), wrapWrapKb: randomHex(32),
      // No password yet: an all-zero verifier that no authPW can match, and verifierSetAt 0.
      authSalt: randomHex(32), verifyHash: '0'.repeat(64), verifierVersion: 1, verifierSetAt: 0, createdAt: now,
      locale: ctx.acceptLanguage, lockedAt: null, disabledAt: null, metricsOptOutAt: null,
      profileChangedAt: now, keysChangedAt: now, clientSalt: null, verifyHashV2: null, wrapWrapKbV2: null,
    };
    const accessToken = await records.create(account, async (trx) => {
      await this.deps.securityEvents.record(trx, uid, { name: 'account.create', ctx, verified: false });
      // Only this client's access tokens may set the first password (setPasswordWithToken).
      await records.setStubClient(trx, uid, client.id);
      return oauth.issueAccessToken(trx, { clientId: client.id, uid, scope: STUB_SCOPES, now, ttlMs: this.deps.accessTokenTtlMs, profileChangedAt: now });
    });
    if (input.wantsSetupToken) {
      const token = await new SignJWT({ uid })
        .setProtectedHeader({ alg: 'HS256', typ: SETUP_TOKEN_TYPE })
        .setIssuer(this.deps.issuer)
        .setIssuedAt(Math.floor(now / 1000))
        .setExpirationTime(Math.floor((now + this.deps.setupTokenTtlMs) / 1000))
        .sign(this.key);
      try {
        await mailer.send('finishSetup', account.email, account.locale, { link: this.deps.setupLink({ email: account.email, token }) });
      } catch (err) {
        // Nothing half-made: without its email the stub is removed again.
        await records.deleteAccount(uid);
        throw err;
      }
    }
    return { uid, access_token: accessToken };
  }

  /**
   * Sets the first password and opens a session in one transaction. The update only applies to an
   * account still without a password, so two racing requests cannot both succeed.
   */
  private async setFirstPassword(
    account: Account, input: PasswordInput, ctx: RequestContext, verifyEmail: boolean, whenSet: () => AppError,
  ): Promise<{ data: string; session: Session }> {
    const { records, sessions } = this.deps;
    checkPasswordInput(input);
    const password = await newPassword(this.deps.scrypt, input);
    const now = this.deps.clock.now();
    return this.deps.db.transaction().execute(async (trx) => {
      if (!(await records.updatePassword(trx, account.uid, { ...password.fields, verifierSetAt: now }, { onlyIfUnset: true }))) throw whenSet();
      if (verifyEmail && (await records.markEmailVerified(trx, account.uid, now))) {
        await this.deps.securityEvents.record(trx, account.uid, { name: 'account.email_verified', ctx, verified: true, additionalInfo: { method: 'setup' } });
      }
      const confirmed = verifyEmail || account.emailVerified;
      return sessions.create(trx, {
        uid: account.uid, now, ctx, tokenVerificationId: confirmed ? null : account.emailCode, mustVerify: false,
        reason: confirmed ? null : 'signup', verifiedWith: confirmed ? 'email' : null,
      });
    });
  }

  /** POST /account/set_password, with the stub's OAuth access token. */
  async setPasswordWithToken(token: { uid: string; clientId: string; scope: string[] }, input: PasswordInput & { sendVerifyEmail: boolean; service?: string | undefined }, ctx: RequestContext) {
    const { db, records, confirmations } = this.deps;
    // Only a stub's own token: one of a stub client, with the scopes stubs are made with.
    if (!this.deps.stubClientIds.includes(token.clientId) || !STUB_SCOPES.every((s) => token.scope.includes(s))) {
      throw appError('INVALID_TOKEN', { detail: 'This access token may not set a first password (it was not issued for a stub account)' });
    }
    const uid = token.uid;
    const account = await records.find(db, uid);
    if (!account) throw appError('INVALID_TOKEN', { detail: 'The account is gone' });
    // And only a token of the client that created this stub: another allow-listed client holding a
    // token for the account (or an account that is no stub) may not choose its password.
    if ((await records.stubClientOf(db, uid)) !== token.clientId) {
      throw appError('INVALID_TOKEN', { detail: 'This access token may not set a first password (it was not issued to the client that created the account)' });
    }
    if (account.verifierSetAt > 0) throw appError('CANNOT_CREATE_PASSWORD');
    const { data, session } = await this.setFirstPassword(account, input, ctx, false, () => appError('CANNOT_CREATE_PASSWORD'));
    if (input.sendVerifyEmail && !account.emailVerified) {
      await confirmations.sendSignup(account, session, 'email-otp', { service: input.service });
    }
    return { uid, sessionToken: data };
  }

  /** The account uid a setup token names, or null when it is forged, of another type or expired. */
  private async setupTokenUid(token: string): Promise<string | null> {
    try {
      const { payload, protectedHeader } = await jwtVerify(token, this.key, { issuer: this.deps.issuer, algorithms: ['HS256'], currentDate: new Date(this.deps.clock.now()) });
      return protectedHeader.typ === SETUP_TOKEN_TYPE && typeof payload.uid === 'string' ? payload.uid : null;
    } catch {
      return null;
    }
  }

  /**
   * What GET /finish_setup shows, read only: `ready` (the form), `used` (the account has its
   * password: sign in) or `invalid` (forged, expired, or the account is gone).
   */
  async setupLinkStatus(token: string): Promise<'ready' | 'used' | 'invalid'> {
    const uid = await this.setupTokenUid(token);
    const account = uid === null ? undefined : await this.deps.records.find(this.deps.db, uid);
    if (!account) return 'invalid';
    return account.verifierSetAt > 0 ? 'used' : 'ready';
  }

  /** POST /account/finish_setup, with the emailed setup token: the email is proven by the link. */
  async finishSetup(token: string, input: PasswordInput, ctx: RequestContext) {
    const { db } = this.deps;
    const uid = await this.setupTokenUid(token);
    if (uid === null) throw appError('INVALID_TOKEN', { detail: 'Invalid or expired setup token' });
    const account = await this.deps.records.find(db, uid);
    if (!account) throw appError('INVALID_TOKEN', { detail: 'Invalid or expired setup token' });
    const used = () => appError('INVALID_TOKEN', { detail: 'Setup token already used' });
    if (account.verifierSetAt > 0) throw used();
    const { data } = await this.setFirstPassword(account, input, ctx, true, used);
    return { uid, sessionToken: data, verified: true };
  }
}
