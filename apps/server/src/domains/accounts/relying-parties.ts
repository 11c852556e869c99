import type { Executor } from '../../storage/executor.js';

// What the accounts domain needs of OAuth, which sits a floor above it (floors.json), declared here
// so that accounts never imports it: the client a stub account is made for and its first access
// token, and the timestamps a relying party is shown in a profile. The oauth domain's service
// provides it; the composition hands it in.

/** The client a stub account is made for, as far as accounts looks at it. */
export interface StubClient {
  id: string;
  publicClient: boolean;
  hashedSecret: string | null;
}

/** Whom an access token names, for the timestamps a profile shows its client. */
export interface TokenSubject {
  uid: string;
  /** The subject its client was shown (a pairwise id), or the uid. */
  subject: string;
}

export interface RelyingParties {
  findClient(db: Executor, clientId: string): Promise<StubClient | null>;
  clientSecretMatches(client: StubClient, secret: string): boolean;
  /** A new access token of the client for the account; the token itself. */
  issueAccessToken(db: Executor, t: { clientId: string; uid: string; scope: string[]; now: number; ttlMs: number; profileChangedAt: number }): Promise<string>;
  /** A time as the token's client is shown it (coarsened for a pairwise client). */
  timestampFor<V extends number | null>(token: TokenSubject, field: string, value: V): V;
}
