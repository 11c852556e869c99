import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { ScryptPool } from '../../crypto/scrypt-pool.js';
import type { FlowContext } from '../../platform/request-context.js';
import type { Executor } from '../../storage/executor.js';
import type { Database } from '../../storage/schema.js';
import type { Mailer } from '../../senders/mail/mailer.js';
import type { Account, AccountRecords } from '../account-core/index.js';
import type { SecurityEvents } from '../security-events/index.js';
import type { Session, SessionsService } from '../sessions/index.js';
import type { TokensService } from '../tokens/index.js';
import type { PasswordInput } from './password.js';
import type { RelyingParties } from './relying-parties.js';
import type { UnblockCodes } from './unblock.js';

// What AccountsService is built from (its deps, and the ports the domains around it provide) and
// the inputs of sign-up and sign-in.

export interface SigninPolicy {
  confirmationEnabled: boolean;
  skipForNewAccountsMs: number;
  forcedEmail: RegExp | null;
}

/**
 * The confirmation emails sign-up and sign-in send. Declared here and provided by the emails
 * domain (which reads accounts through AccountRecords), so accounts does not import it.
 */
export interface SigninConfirmations {
  /** The sign-up loop: confirms the address and the session waiting on it. */
  sendSignup(account: Account, session: Session, method: string | undefined, ctx: FlowContext): Promise<void>;
  /** Whichever loop the session is waiting on (sign-up or sign-in); nothing when none. */
  sendFor(account: Account, session: Session, method: string | undefined, ctx: FlowContext): Promise<void>;
  /** The notice of a sign-in that needed no confirmation. */
  sendNewSigninNotice(account: Account, session: Session): Promise<void>;
}

/**
 * The account's Google and Apple links, as the account views show them. Provided by the
 * linked-accounts domain, so accounts does not import it.
 */
export interface LinkedAccountsView {
  list(db: Executor, uid: string): Promise<{ providerId: 'google' | 'apple'; authAt: number; enabled: boolean }[]>;
  hasLink(db: Executor, uid: string): Promise<boolean>;
}

export interface AccountsDeps {
  db: Kysely<Database>;
  clock: Clock;
  scrypt: ScryptPool;
  records: AccountRecords;
  sessions: SessionsService;
  tokens: TokensService;
  confirmations: SigninConfirmations;
  /** Records sign-ups, sign-ins and wrong passwords. */
  securityEvents: SecurityEvents;
  /** Sends the notice of a deleted account. */
  mailer: Mailer;
  unblockCodes: UnblockCodes;
  linkedAccounts: LinkedAccountsView;
  /** Two-step authentication (issue 12): whether sign-ins to the account need a second factor. */
  twoStep: { isEnabled(uid: string, db?: Executor): Promise<boolean> };
  signin: SigninPolicy;
  /** How long another account's unconfirmed secondary address holds it against sign-up (ms). */
  secondaryClaimMs: number;
  /** Where failures that must not fail the request go (an undeliverable sign-in notice). */
  warn: (message: string, err: unknown) => void;
  /** Account times as an access token's client may see them (pairwise clients get markers; issue 22, hole 7). */
  oauth: Pick<RelyingParties, 'timestampFor'>;
}

export interface CreateInput extends PasswordInput, FlowContext {
  email: string;
  keys: boolean;
  verificationMethod?: string | undefined;
}

export interface LoginInput extends FlowContext {
  email: string;
  authPW: string;
  keys: boolean;
  verificationMethod?: string | undefined;
  unblockCode?: string | undefined;
  /** The primary address the person typed, when `email` is the v1 salt address a 120 reply named. */
  originalLoginEmail?: string | undefined;
  /** Rate limiting blocks this sign-in (a block, which an unblock code may lift). */
  blocked?: boolean;
}
