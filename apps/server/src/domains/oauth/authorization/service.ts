import { randomHex } from '@tessera/protocol';
import type { Clock } from '../../../clock.js';
import type { Executor } from '../../../storage/executor.js';
import type { SessionWithAccount } from '../../sessions/index.js';
import type { ClientRegistry } from '../clients/registry.js';
import { authenticationOf } from '../grants/grant.js';
import { insertCode } from '../grants/store.js';
import { hashToken } from '../token-hash.js';
import { AUTHORIZATION_STEPS, type AuthorizationDoor } from './door-steps.js';
import { clientOf, scopeOf, type Authorization, type AuthorizationRequest, type StepDeps } from './request.js';

// The authorization-code flow's first half (RFC 6749 §4.1 with PKCE, RFC 7636, S256 only), on the
// session-token path: a signed-in client asks for a code for a relying party, which trades it at
// /token (grants/authorization-code.ts).

export const CODE_LIFETIME_MS = 15 * 60_000;

export interface AuthorizationDeps {
  db: Executor;
  clock: Clock;
  clients: ClientRegistry;
  /** The OpenID issuer: the server's public URL without a trailing slash. */
  issuer: string;
}

/** A code issued: where to send the browser (`redirect`, with the code, state and issuer added) and what was granted. */
export interface AuthorizationAnswer {
  code: string;
  state?: string;
  redirect: string;
  scope: string[];
}

export class AuthorizationService {
  private readonly steps: StepDeps;

  constructor(private readonly deps: AuthorizationDeps) {
    this.steps = { db: deps.db, findClient: (db, id) => deps.clients.findClient(db, id) };
  }

  /** A code for the signed-in person, bound to the client, its PKCE challenge and redirect_uri, once the door's steps passed. */
  async authorize(session: SessionWithAccount, request: AuthorizationRequest, door: AuthorizationDoor): Promise<AuthorizationAnswer> {
    const now = this.deps.clock.now();
    let a: Authorization = { session, request };
    for (const step of AUTHORIZATION_STEPS[door]) a = await step(a, this.steps);
    const client = clientOf(a);
    const scope = scopeOf(a);
    const req = a.request;
    const { aal, amr } = authenticationOf(session);
    const code = randomHex(32);
    await insertCode(this.deps.db, {
      codeHash: hashToken(code), clientId: client.id, uid: session.uid, scope, authAt: session.authAt, amr, aal,
      offline: req.access_type === 'offline', codeChallenge: req.code_challenge ?? null, redirectUri: req.redirect_uri ?? null,
      nonce: req.nonce ?? null, keysJwe: req.keys_jwe ?? null, createdAt: now, expiresAt: now + CODE_LIFETIME_MS, ppidSeed: req.ppid_seed ?? null,
    });
    const redirect = new URL(req.redirect_uri ?? client.redirectUri);
    redirect.searchParams.set('code', code);
    if (req.state !== undefined) redirect.searchParams.set('state', req.state);
    // RFC 9207: the issuer in the authorization response, so a client talking to several servers
    // can tell which one answered (the mix-up defence of RFC 9700 §4.4); discovery advertises it.
    redirect.searchParams.set('iss', this.deps.issuer);
    return { code, ...(req.state !== undefined ? { state: req.state } : {}), redirect: redirect.toString(), scope };
  }
}
