import { randomHex } from '@tessera/protocol';
import { appError, type AppError } from '@tessera/errors';
import { SignJWT, jwtVerify } from 'jose';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { ScryptPool } from '../../crypto/scrypt-pool.js';
import type { RequestContext } from '../../http/context.js';
import type { Database } from '../../storage/schema.js';
import type { OAuthService } from '../oauth/index.js';
import type { Session, SessionsService } from '../sessions/index.js';
import { checkPasswordInput, newPassword, type PasswordInput } from './password.js';
import type { AccountRecords } from './records.js';
import type { SigninConfirmations } from './service.js';
import type { Account } from './store.js';

// Stub accounts: a relying party (e.g. a subscription checkout) creates an account by email alone,
// gets an OAuth access token for it, and the person sets a password later — through the relying
// party (POST /account/set_password with that token) or through an emailed setup link
// (POST /account/finish_setup with the setup token).

/** The scopes of the access token a stub account is created with. */
export const STUB_SCOPES = ['profile:write', 'https://identity.mozilla.com/account/subscriptions'];
const SETUP_TOKEN_TYPE = 'fin+JWT';

export interface SetupDeps {
  db: Kysely<Database>;
  clock: Clock;
  scrypt: ScryptPool;
  records: AccountRecords;
  sessions: SessionsService;
  oauth: OAuthService;
  confirmations: SigninConfirmations;
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

  /** POST /account/stub. */
  async stub(input: { email: string; clientId: string; wantsSetupToken?: boolean | undefined }, ctx: RequestContext) {
    const { db, clock, records, oauth } = this.deps;
    const client = await oauth.findClient(db, input.clientId.toLowerCase());
    if (!client) throw appError('UNKNOWN_CLIENT_ID', { clientId: input.clientId });
    const holder = await records.findByEmail(db, input.email);
    if (holder) {
      if (!holder.emailRecord.isPrimary || holder.account.emailVerified) throw appError('ACCOUNT_EXISTS', { email: holder.account.email });
      await records.deleteAccount(holder.account.uid);
    }
    const now = clock.now();
    const uid = randomHex(16);
    const emailCode = randomHex(16);
    const account: Account = {
      uid, email: input.email, emailCode, emailVerified: false, kA: randomHex(32), wrapWrapKb: randomHex(32),
      // No password yet: an all-zero verifier that no authPW can match, and verifierSetAt 0.
      authSalt: randomHex(32), verifyHash: '0'.repeat(64), verifierVersion: 1, verifierSetAt: 0, createdAt: now,
      locale: ctx.acceptLanguage, lockedAt: null, disabledAt: null, metricsOptOutAt: null,
      profileChangedAt: now, keysChangedAt: now, clientSalt: null, verifyHashV2: null, wrapWrapKbV2: null,
    };
    const accessToken = await db.transaction().execute(async (trx) => {
      await records.insert(trx, account);
      return oauth.issueAccessToken(trx, {
        clientId: client.id, uid, scope: STUB_SCOPES, now, ttlMs: this.deps.accessTokenTtlMs, profileChangedAt: now,
      });
    });
    const setupToken = input.wantsSetupToken
      ? await new SignJWT({ uid })
          .setProtectedHeader({ alg: 'HS256', typ: SETUP_TOKEN_TYPE })
          .setIssuer(this.deps.issuer)
          .setIssuedAt(Math.floor(now / 1000))
          .setExpirationTime(Math.floor((now + this.deps.setupTokenTtlMs) / 1000))
          .sign(this.key)
      : undefined;
    return { uid, access_token: accessToken, ...(setupToken ? { setup_token: setupToken } : {}) };
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
      if (verifyEmail) await records.markEmailVerified(trx, account.uid, now);
      const confirmed = verifyEmail || account.emailVerified;
      return sessions.create(trx, {
        uid: account.uid, now, ctx, tokenVerificationId: confirmed ? null : account.emailCode, mustVerify: false,
        reason: confirmed ? null : 'signup', verifiedWith: confirmed ? 'email' : null,
      });
    });
  }

  /** POST /account/set_password, with the stub's OAuth access token. */
  async setPasswordWithToken(uid: string, input: PasswordInput & { sendVerifyEmail: boolean; service?: string | undefined }, ctx: RequestContext) {
    const { db, records, confirmations } = this.deps;
    const account = await records.find(db, uid);
    if (!account) throw appError('INVALID_TOKEN', { detail: 'The account is gone' });
    if (account.verifierSetAt > 0) throw appError('CANNOT_CREATE_PASSWORD');
    const { data, session } = await this.setFirstPassword(account, input, ctx, false, () => appError('CANNOT_CREATE_PASSWORD'));
    if (input.sendVerifyEmail && !account.emailVerified) {
      await confirmations.sendSignup(account, session, 'email-otp', { service: input.service });
    }
    return { uid, sessionToken: data };
  }

  /** POST /account/finish_setup, with the emailed setup token: the email is proven by the link. */
  async finishSetup(token: string, input: PasswordInput, ctx: RequestContext) {
    const { db, clock } = this.deps;
    let uid: string;
    try {
      const { payload, protectedHeader } = await jwtVerify(token, this.key, { issuer: this.deps.issuer, algorithms: ['HS256'], currentDate: new Date(clock.now()) });
      if (protectedHeader.typ !== SETUP_TOKEN_TYPE || typeof payload.uid !== 'string') throw new Error('wrong token type');
      uid = payload.uid;
    } catch {
      throw appError('INVALID_TOKEN', { detail: 'Invalid or expired setup token' });
    }
    const account = await this.deps.records.find(db, uid);
    if (!account) throw appError('INVALID_TOKEN', { detail: 'Invalid or expired setup token' });
    const used = () => appError('INVALID_TOKEN', { detail: 'Setup token already used' });
    if (account.verifierSetAt > 0) throw used();
    const { data } = await this.setFirstPassword(account, input, ctx, true, used);
    return { uid, sessionToken: data, verified: true };
  }
}
