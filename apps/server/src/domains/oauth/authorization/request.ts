import type { Executor } from '../../../storage/executor.js';
import type { SessionWithAccount } from '../../sessions/index.js';
import type { OAuthClient } from '../clients/store.js';

// An authorization request (POST /authorization and /oauth/authorization) as its steps see it. Each
// step (steps/) checks one thing of the request and returns it refined (the client found, the scope
// parsed) or throws the catalogue error; a door lists its steps in order (door-steps.ts).

/** The body of POST /authorization, as the wire names it. */
export interface AuthorizationRequest {
  client_id: string;
  scope?: string;
  state?: string;
  redirect_uri?: string;
  response_type?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  access_type?: string;
  acr_values?: string;
  keys_jwe?: string;
  nonce?: string;
  /** Pairwise clients: 0–1024, kept with the code. */
  ppid_seed?: number;
  /** The OAuth-server door's never-honoured identity assertion (assertion.ts). */
  assertion?: string;
}

/** The request value the steps refine. */
export interface Authorization {
  /** The signed-in person (a confirmed session at the account's AAL: the door's strategy). */
  session: SessionWithAccount;
  request: AuthorizationRequest;
  /** The relying party, once check-client found it. */
  client?: OAuthClient;
  /** The scopes granted, once check-scopes allowed them. */
  scope?: string[];
}

export interface StepDeps {
  db: Executor;
  findClient(db: Executor, id: string): Promise<OAuthClient | null>;
}

export type AuthorizationStep = (authorization: Authorization, deps: StepDeps) => Authorization | Promise<Authorization>;

/** The client a later step needs; a door table listing that step before check-client is a programming error. */
export function clientOf(authorization: Authorization): OAuthClient {
  if (!authorization.client) throw new Error('check-client must come before this authorization step');
  return authorization.client;
}

/** The scopes check-scopes allowed; a door table without that step is a programming error. */
export function scopeOf(authorization: Authorization): string[] {
  if (!authorization.scope) throw new Error('check-scopes must be in every authorization door\'s steps');
  return authorization.scope;
}
