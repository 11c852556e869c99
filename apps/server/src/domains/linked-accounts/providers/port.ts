import { appError } from '@tessera/errors';

// The port the linked-accounts domain owns: what it needs of an identity provider, whoever the
// provider is. Each provider is an adapter beside it (google.ts, apple.ts) that keeps this
// contract, proven by one contract suite every adapter runs
// (test/domains/linked-accounts/provider.contract.test.ts). The service and the routes know the
// port only; a new provider is a new adapter and a line in `PROVIDERS`.

export const PROVIDERS = ['google', 'apple'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** What a verified id_token says about the person. */
export interface ProviderIdentity {
  provider: Provider;
  /** The provider's stable id of the person. */
  subject: string;
  email: string | null;
  /** The provider vouches for the address (`email_verified`). */
  emailVerified: boolean;
  /** The address is a private relay address (Apple's `is_private_email`). */
  privateEmail: boolean;
  /** The token's expiry (ms). */
  expiresAt: number;
}

/** One event of a provider's server-to-server notification (what happened to a person's account there). */
export interface ProviderEvent {
  type: string;
  /** The provider's id of the person. */
  subject: string;
  email: string | null;
}

export interface IdentityProvider {
  readonly name: Provider;
  /** Whether sign-in with it is enabled here; when not, each method answers 503/202. */
  readonly enabled: boolean;
  /**
   * Verifies an OpenID Connect id_token issued to one of our client ids (signature against the
   * provider's keys, issuer, audience and authorized party, expiry and issue time, and `nonce`
   * when the client sent one). A token that fails a check is 400/107 on the field that carried
   * it (`idToken`, `nonce`), the message saying which check; 500/205 when the provider's keys
   * cannot be had (a retry may cure it).
   */
  verifyIdToken(idToken: string, nonce: string | undefined): Promise<ProviderIdentity>;
  /**
   * Providers that notify (Apple): verifies a notification, a JWT the provider signed for one of
   * our client ids at most a day ago, and returns its event; 400/107 on `payload` otherwise.
   */
  verifyNotification?(jwt: string): Promise<ProviderEvent>;
}

/** A provider token that fails a check: 400/107 on the field that carried it. */
export const refused = (field: string, message: string) =>
  appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: [field] } }, message);

/** 503/202: sign-in with the provider is not enabled (the setting named). */
export const notEnabled = (provider: Provider) =>
  appError('FEATURE_NOT_ENABLED', {}, `Sign-in with ${provider} is not enabled on this server (LINKED_ACCOUNT_${provider.toUpperCase()}_ENABLED)`);
