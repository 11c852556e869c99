import { randomHex } from '@tessera/protocol';
import { appError } from '@tessera/errors';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { RequestContext } from '../../platform/request-context.js';
import type { Executor, Trx } from '../../storage/executor.js';
import type { Database } from '../../storage/schema.js';
import type { Account, AccountRecords } from '../account-core/index.js';
import type { SecurityEvents } from '../security-events/index.js';
import { verificationState, type Session, type SessionsService } from '../sessions/index.js';
import {
  deleteLink, deleteLinksOf, disableLink, findLinkBySubject, forgetSession, forgetSessionsOf, insertLink, listLinks, lockLinks,
  rememberSession, sessionProviders, setLinkEmail, spendToken, touchLink, type LinkedAccount,
} from './store.js';
import { tokenHash } from './providers/oidc.js';
import { refused, type IdentityProvider, type Provider, type ProviderEvent, type ProviderIdentity } from './providers/port.js';

// Sign-in with Google and Apple. A verified id_token whose subject is linked signs in to that
// account; otherwise its provider-verified address links to the account holding it (a confirmed
// primary address, or a stub awaiting setup), or opens a new account without a password; another
// account's unconfirmed claim on the address yields to it (issue 22, hole 8). The
// session it returns is confirmed — the provider authenticated the person — unless the account has
// a second factor: then the session waits for it (verificationMethod totp-2fa), as a password
// sign-in would, so a linked sign-in never skips two-step authentication.

export interface SecondFactor {
  /** Whether a new session of the account must pass a second factor before it is confirmed. */
  required(db: Executor, uid: string): Promise<boolean>;
}

/** Secondary addresses (the secondary-emails domain): an unconfirmed claim yields to a provider-verified address. */
export interface AddressClaims {
  /** Removes another account's unconfirmed claim on the address; true when one was removed. */
  releaseUnconfirmedClaim(email: string, ctx: RequestContext, reason: string): Promise<boolean>;
}

export interface LinkedAccountsDeps {
  db: Kysely<Database>;
  clock: Clock;
  records: AccountRecords;
  sessions: SessionsService;
  securityEvents: SecurityEvents;
  /** The providers' adapters (providers/), each keeping the port's contract. */
  providers: Record<Provider, IdentityProvider>;
  secondFactor: SecondFactor;
  claims: AddressClaims;
  /** Accept Apple's server-to-server notifications. */
  appleNotifications: boolean;
  toleranceSeconds: number;
}

export interface LinkedLoginInput {
  provider: Provider;
  idToken: string;
  nonce?: string | undefined;
}

/** Apple's notification event types (Sign in with Apple server-to-server notifications). */
const APPLE_EVENTS = ['email-disabled', 'email-enabled', 'consent-revoked', 'account-delete'] as const;

const failed = (message: string) => appError('THIRD_PARTY_ACCOUNT_ERROR', {}, message);
const seconds = (ms: number) => Math.floor(ms / 1000);

export class LinkedAccountsService {
  constructor(private readonly deps: LinkedAccountsDeps) {}

  /** POST /linked_account/login. */
  async login(input: LinkedLoginInput, ctx: RequestContext) {
    const { db, clock, providers } = this.deps;
    const identity = await providers[input.provider].verifyIdToken(input.idToken, input.nonce);
    const now = clock.now();
    // Single use: a token seen once (here or by another instance) opens nothing more. Spent before
    // anything is written, outside the transaction, so a failed sign-in still spends it.
    if (!(await spendToken(db, tokenHash(input.idToken), identity.expiresAt + this.deps.toleranceSeconds * 1000, now))) {
      throw refused('idToken', `This ${input.provider} token was already used: get a new one from the provider`);
    }
    const link = await findLinkBySubject(db, identity.provider, identity.subject);
    const target = link ? await this.linkedAccount(link) : await this.accountForAddress(identity, ctx);
    const twoStep = target.account ? await this.deps.secondFactor.required(db, target.account.uid) : false;

    const result = await (target.account
      ? this.signIn(target.account, identity, link, twoStep, now, ctx)
      : this.signUp(identity, now, ctx));
    const { account, session, data } = result;
    return {
      uid: account.uid,
      sessionToken: data,
      providerUid: identity.subject,
      email: account.email,
      ...verificationState(session, true, twoStep ? 'totp-2fa' : undefined),
      authAt: seconds(now),
    };
  }

  /** The account a linked subject signs in to. */
  private async linkedAccount(link: LinkedAccount): Promise<{ account: Account }> {
    const account = await this.deps.records.find(this.deps.db, link.uid);
    if (!account) throw failed('The linked account is gone');
    if (account.disabledAt) throw appError('LOGIN_WITH_INVALID_EMAIL');
    return { account };
  }

  /**
   * The account an unlinked identity joins: the holder of its address, or none (a new account).
   * Only an address the provider verified is used at all.
   */
  private async accountForAddress(identity: ProviderIdentity, ctx: RequestContext): Promise<{ account: Account | null }> {
    const { db, records } = this.deps;
    if (!identity.email) throw refused('idToken', `The ${identity.provider} token carries no email address: request the email scope`);
    if (!identity.emailVerified) {
      throw refused('idToken', `${identity.provider} has not verified this email address: it is neither linked to an account nor used for a new one`);
    }
    let holder = await records.findByEmail(db, identity.email);
    if (holder && !holder.emailRecord.isPrimary && !holder.emailRecord.isVerified) {
      // Issue 22, hole 8: another account added this address and never proved it. The provider
      // vouches that the person signing in holds it, so the claim goes (at any age: only this
      // person could ever finish it), and the sign-in goes on as if it had never been made. Read
      // again: a claim confirmed meanwhile is kept, and then refused below as any secondary is.
      await this.deps.claims.releaseUnconfirmedClaim(identity.email, ctx, `the address was verified by ${identity.provider} for another sign-in`);
      holder = await records.findByEmail(db, identity.email);
    }
    if (!holder) return { account: null };
    // A secondary address does not sign in (142), nor does it take a link.
    if (!holder.emailRecord.isPrimary) throw appError('LOGIN_WITH_SECONDARY_EMAIL');
    const account = holder.account;
    if (account.disabledAt) throw appError('LOGIN_WITH_INVALID_EMAIL');
    if (!account.emailVerified && account.verifierSetAt > 0) {
      // Someone signed up with this address and never confirmed it: linking would hand the owner's
      // provider identity to whoever chose that password (pre-account hijacking). The unconfirmed
      // sign-up is replaced, as a new sign-up would replace it.
      await records.deleteAccount(account.uid);
      return { account: null };
    }
    return { account };
  }

  /** A session on an existing account, linking the identity first when it is new. */
  private async signIn(account: Account, identity: ProviderIdentity, link: LinkedAccount | null, twoStep: boolean, now: number, ctx: RequestContext) {
    const { db, records, securityEvents } = this.deps;
    const created = await db.transaction().execute(async (trx) => {
      if (link) {
        await touchLink(trx, account.uid, identity.provider, now, identity.email);
      } else {
        if (!(await insertLink(trx, this.newLink(account.uid, identity, now)))) {
          throw failed(`This account is already linked to another ${identity.provider} account`);
        }
        // A stub awaiting setup: the provider just proved the address.
        if (!account.emailVerified) await records.markEmailVerified(trx, account.uid, now);
        await securityEvents.record(trx, account.uid, { name: 'account.linked', ctx, verified: true, additionalInfo: { provider: identity.provider } });
      }
      const opened = await this.openSession(trx, account.uid, identity.provider, twoStep, now, ctx);
      await securityEvents.record(trx, account.uid, { name: 'account.linked_login', ctx, verified: !twoStep, additionalInfo: { provider: identity.provider } });
      return opened;
    });
    return { account, ...created };
  }

  /** A new account without a password, its confirmed address the provider's. */
  private async signUp(identity: ProviderIdentity, now: number, ctx: RequestContext) {
    const { records, securityEvents } = this.deps;
    const uid = randomHex(16);
    const account: Account = {
      uid, email: identity.email!, passwordEmail: null, emailCode: randomHex(16), emailVerified: false, kA: randomHex(32), wrapWrapKb: randomHex(32),
      // No password: an all-zero verifier no authPW can match, and verifierSetAt 0 (210 at
      // /account/login until one is set), as for stub accounts.
      authSalt: randomHex(32), verifyHash: '0'.repeat(64), verifierVersion: 1, verifierSetAt: 0, createdAt: now,
      locale: ctx.acceptLanguage, lockedAt: null, disabledAt: null, metricsOptOutAt: null,
      profileChangedAt: now, keysChangedAt: now, clientSalt: null, verifyHashV2: null, wrapWrapKbV2: null,
    };
    const created = await records.create(account, async (trx) => {
      await records.markEmailVerified(trx, uid, now);
      if (!(await insertLink(trx, this.newLink(uid, identity, now)))) throw failed(`This ${identity.provider} account is already linked`);
      await securityEvents.record(trx, uid, { name: 'account.create', ctx, verified: true });
      await securityEvents.record(trx, uid, { name: 'account.linked', ctx, verified: true, additionalInfo: { provider: identity.provider } });
      const opened = await this.openSession(trx, uid, identity.provider, false, now, ctx);
      await securityEvents.record(trx, uid, { name: 'account.linked_login', ctx, verified: true, additionalInfo: { provider: identity.provider } });
      return opened;
    });
    return { account: { ...account, emailVerified: true }, ...created };
  }

  private newLink(uid: string, identity: ProviderIdentity, now: number): LinkedAccount {
    return { uid, provider: identity.provider, subject: identity.subject, email: identity.email, enabled: true, createdAt: now, authAt: now };
  }

  /** The session, confirmed unless a second factor must confirm it; remembered with its provider. */
  private async openSession(trx: Trx, uid: string, provider: Provider, twoStep: boolean, now: number, ctx: RequestContext): Promise<{ data: string; session: Session }> {
    const opened = await this.deps.sessions.create(trx, {
      uid, now, ctx, tokenVerificationId: twoStep ? randomHex(16) : null, mustVerify: twoStep, reason: twoStep ? 'login' : null,
    });
    await rememberSession(trx, opened.session.id, uid, provider);
    return opened;
  }

  /**
   * POST /linked_account/unlink. Refused when the link is the account's last way in (no password
   * and no other link). The sessions opened through the link end, except the caller's own.
   */
  async unlink(session: Session, provider: Provider, ctx: RequestContext): Promise<void> {
    const { db, records, securityEvents } = this.deps;
    await db.transaction().execute(async (trx) => {
      // Two unlinks of one account (say google and apple at once) must not both pass the check.
      await lockLinks(trx, session.uid);
      const links = await listLinks(trx, session.uid);
      if (!links.some((l) => l.provider === provider)) {
        throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['provider'] } }, `No ${provider} account is linked to this account`);
      }
      const account = await records.find(trx, session.uid);
      if (!account || (account.verifierSetAt <= 0 && links.length === 1)) {
        throw appError('UNABLE_TO_LOGIN_NO_PASSWORD_SET', {}, `The ${provider} account is this account's only way to sign in: set a password first (POST /password/create), then unlink`);
      }
      await deleteLink(trx, session.uid, provider);
      await this.endSessionsOf(trx, session.uid, provider, session.id);
      await securityEvents.record(trx, session.uid, { name: 'account.unlinked', ctx, verified: true, additionalInfo: { provider } });
    });
  }

  /** Ends the sessions the provider's link opened (but `keep`, whose provider mark goes). */
  private async endSessionsOf(trx: Trx, uid: string, provider: Provider, keep: string | null): Promise<void> {
    for (const [id, p] of await sessionProviders(trx, uid)) {
      if (p !== provider) continue;
      if (id === keep) await forgetSession(trx, id);
      else await this.deps.sessions.delete(trx, { id, uid });
    }
  }

  /**
   * The appleNotification auth strategy: an Apple notification's JWT proven (503/202 unless
   * LINKED_ACCOUNT_APPLE_NOTIFICATIONS_ENABLED; 400/107 on `payload` when it fails a check).
   */
  async verifyAppleNotification(payloadJwt: string): Promise<ProviderEvent> {
    if (!this.deps.appleNotifications) throw appError('FEATURE_NOT_ENABLED', {}, 'Apple notifications are not enabled on this server (LINKED_ACCOUNT_APPLE_NOTIFICATIONS_ENABLED)');
    return this.deps.providers.apple.verifyNotification!(payloadJwt);
  }

  /**
   * POST /linked_account/apple/notification: one of Apple's server-to-server notifications (its
   * signature proven by the appleNotification strategy), saying what happened to a person's Apple ID. The person
   * revoked consent or deleted the Apple ID: the link stops signing in (disabled, or removed) and
   * the sessions it opened end. Relay forwarding turned off or on: the link keeps the address.
   */
  async appleNotification(event: ProviderEvent, ctx: RequestContext): Promise<void> {
    const { db, securityEvents } = this.deps;
    // Event types Apple may add later are acknowledged and ignored.
    if (!(APPLE_EVENTS as readonly string[]).includes(event.type)) return;
    const link = await findLinkBySubject(db, 'apple', event.subject);
    if (!link) return;
    await db.transaction().execute(async (trx) => {
      if (event.type === 'account-delete') {
        await deleteLink(trx, link.uid, 'apple');
      } else if (event.type === 'consent-revoked') {
        await disableLink(trx, link.uid, 'apple');
      } else {
        if (event.email) await setLinkEmail(trx, link.uid, 'apple', event.email);
        return;
      }
      await this.endSessionsOf(trx, link.uid, 'apple', null);
      await securityEvents.record(trx, link.uid, { name: 'account.unlinked', ctx, verified: true, additionalInfo: { provider: 'apple', reason: event.type } });
    });
  }

  /** What GET /account shows. */
  async list(db: Executor, uid: string) {
    return (await listLinks(db, uid)).map((l) => ({ providerId: l.provider, authAt: l.authAt, enabled: l.enabled }));
  }

  /** Whether the account has a link (POST /account/status). */
  async hasLink(db: Executor, uid: string): Promise<boolean> {
    return (await listLinks(db, uid)).length > 0;
  }

  /** The account's sessions opened by a linked sign-in: session handle → provider (attached clients). */
  sessionProviders(db: Executor, uid: string): Promise<Map<string, Provider>> {
    return sessionProviders(db, uid);
  }

  // Lifecycle: the rows go with the account, and with the sessions they describe.
  accountDeleted = async (trx: Trx, uid: string) => {
    await forgetSessionsOf(trx, uid);
    await deleteLinksOf(trx, uid);
  };
  sessionsEnded = (trx: Executor, uid: string, keep: string | null) => forgetSessionsOf(trx, uid, keep);
  sessionEnded = (db: Executor, sessionId: string) => forgetSession(db, sessionId);
}
