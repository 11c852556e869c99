import type { OAuthClient } from './store.js';

// The clients registry's rules: what a registration may hold, how a request's redirect_uri matches
// a registered one. Pure functions; the registry (registry.ts) stores.

/** What registering a client takes. Secrets arrive in clear (CLI) or already hashed (the file). */
export interface ClientRegistration {
  id: string;
  name: string;
  imageUri?: string;
  /** Older callers register one URI; `redirectUris` wins when both are given. */
  redirectUri?: string;
  redirectUris?: string[];
  /** 64 hex, stored only as its SHA-256. Null (or absent with no hash) for public clients. */
  secret?: string | null;
  /** SHA-256 (64 hex) of the secret's bytes, as OAUTH_CLIENTS_FILE carries it. */
  hashedSecret?: string | null;
  trusted: boolean;
  publicClient: boolean;
  canGrant: boolean;
  allowedScopes: string[];
  localRedirects?: boolean;
  accessTokenTtlSeconds?: number;
  refreshTokenTtlSeconds?: number;
  rotateRefreshTokens?: boolean;
  /** Pairwise subject identifiers: the client never sees the account's uid. */
  pairwiseSubjects?: boolean;
  /** Seconds after which the pairwise subjects change (0 or absent: never); only with pairwiseSubjects. */
  pairwiseRotationSeconds?: number;
  /** Access tokens are RS256 JWTs (RFC 9068). */
  jwtAccessTokens?: boolean;
  /** RFC 8707: the resource URIs the client may name at /token, each added to its tokens' audience when named; absent: none. */
  allowedResources?: string[];
  createdAt: number;
}

export const MAX_ACCESS_TOKEN_TTL_SECONDS = 86_400;
export const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 86_400;

/** Pairwise rotation periods: at least an hour, at most a year. */
export const MIN_PAIRWISE_ROTATION_SECONDS = 3600;
export const MAX_PAIRWISE_ROTATION_SECONDS = 365 * 86_400;

/**
 * Scopes that would show a pairwise client the account's real uid (GET /profile answers `uid` to
 * `profile` and `profile:uid`, and `:write` covers its read): refused to pairwise clients.
 */
export function revealsUid(scope: string): boolean {
  return scope === 'profile' || scope === 'profile:write' || scope === 'profile:uid' || scope === 'profile:uid:write';
}

export class ClientRegistrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientRegistrationError';
  }
}

const HEX16 = /^[0-9a-f]{16}$/;
const HEX64 = /^[0-9a-f]{64}$/;
const SCOPE = /^[a-zA-Z0-9_/.:#-]+$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Whether `uri` is an http URL on a loopback host (RFC 8252 §7.3; `localhost` tolerated, §8.3 advises the literal). */
export function isLoopback(uri: URL): boolean {
  return uri.protocol === 'http:' && LOOPBACK_HOSTS.has(uri.hostname);
}

/**
 * A redirect URI a client may register: absolute, no fragment, ≤ 256 characters; https, http only
 * to a loopback host (native apps, RFC 8252 §7.3), a private-use scheme with a dot in it
 * (`com.example.app:/cb`, §7.1), or a `urn:` (browsers' WebChannel, e.g. Firefox's
 * `urn:ietf:wg:oauth:2.0:oob:oauth-redirect-webchannel`).
 */
export function checkRedirectUri(raw: string): string {
  if (raw.length > 256) throw new ClientRegistrationError(`redirect URI longer than 256 characters: ${raw.slice(0, 40)}…`);
  if (/\s/.test(raw)) throw new ClientRegistrationError(`redirect URI contains white space: ${raw}`);
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ClientRegistrationError(`redirect URI is not an absolute URI: ${raw}`);
  }
  if (raw.includes('#')) throw new ClientRegistrationError(`redirect URI has a fragment: ${raw}`);
  if (u.protocol === 'https:' || isLoopback(u)) return raw;
  if (u.protocol === 'http:') throw new ClientRegistrationError(`redirect URI must be https (http only to 127.0.0.1, [::1] or localhost): ${raw}`);
  if (u.protocol === 'urn:' || /^[a-z][a-z0-9+-]*\.[a-z0-9+.-]+:$/.test(u.protocol)) return raw;
  throw new ClientRegistrationError(`redirect URI scheme ${u.protocol} is not https, loopback http, a private-use scheme (reverse domain name) or urn: ${raw}`);
}

/**
 * Whether a request's redirect_uri is one the client registered: exact string equality, except that
 * a client with loopback redirects may use any port on a registered loopback URI (RFC 8252 §7.3:
 * native apps get an ephemeral port) — scheme, host, path and query still match exactly.
 */
export function redirectUriMatches(client: Pick<OAuthClient, 'redirectUris' | 'localRedirects'>, requested: string): boolean {
  if (client.redirectUris.includes(requested)) return true;
  if (!client.localRedirects) return false;
  let want: URL;
  try {
    want = new URL(requested);
  } catch {
    return false;
  }
  if (!isLoopback(want) || requested.includes('#') || want.username || want.password) return false;
  return client.redirectUris.some((registered) => {
    const r = new URL(registered);
    return isLoopback(r) && r.hostname === want.hostname && r.pathname === want.pathname && r.search === want.search
      // The path and query are compared as sent, not normalised by the URL parser.
      && requested.endsWith(`${want.pathname}${want.search}`) && registered.endsWith(`${r.pathname}${r.search}`);
  });
}

/**
 * A resource a client may be registered for (RFC 8707 §2): an absolute URI without a fragment or
 * white space, ≤ 256 characters. It is matched at /token exactly as written here.
 */
export function checkAllowedResource(id: string, raw: string): string {
  if (raw.length > 256) throw new ClientRegistrationError(`client ${id}: resource longer than 256 characters: ${raw.slice(0, 40)}…`);
  if (/\s/.test(raw) || raw.includes('#')) throw new ClientRegistrationError(`client ${id}: a resource has no white space and no fragment: ${raw}`);
  try {
    new URL(raw);
  } catch {
    throw new ClientRegistrationError(`client ${id}: a resource must be an absolute URI: ${raw}`);
  }
  return raw;
}

/** Checks a registration and returns the client as it is stored (the secret hashed with `hash`). */
export function clientFromRegistration(reg: ClientRegistration, hash: (secret: string) => string): OAuthClient {
  const id = reg.id.toLowerCase();
  if (!HEX16.test(id)) throw new ClientRegistrationError(`client id must be 16 hex characters: ${reg.id}`);
  const name = reg.name.trim();
  if (!name || name.length > 255) throw new ClientRegistrationError(`client ${id}: name must be 1–255 characters`);
  const imageUri = reg.imageUri ?? '';
  if (imageUri && (imageUri.length > 256 || !/^https:\/\//.test(imageUri))) throw new ClientRegistrationError(`client ${id}: image URI must be an https URL of at most 256 characters`);
  const redirectUris = [...new Set(reg.redirectUris ?? (reg.redirectUri ? [reg.redirectUri] : []))].map(checkRedirectUri);
  if (!redirectUris.length) throw new ClientRegistrationError(`client ${id}: at least one redirect URI is needed`);
  if (redirectUris.join(' ').length > 4000) throw new ClientRegistrationError(`client ${id}: too many redirect URIs`);
  for (const s of reg.allowedScopes) if (!SCOPE.test(s) || s.length > 256) throw new ClientRegistrationError(`client ${id}: invalid scope ${JSON.stringify(s)}`);
  let hashedSecret: string | null = null;
  if (reg.secret) {
    if (!HEX64.test(reg.secret)) throw new ClientRegistrationError(`client ${id}: the secret must be 64 hex characters (32 random bytes)`);
    hashedSecret = hash(reg.secret);
  } else if (reg.hashedSecret) {
    if (!HEX64.test(reg.hashedSecret.toLowerCase())) throw new ClientRegistrationError(`client ${id}: hashedSecret must be 64 hex characters (SHA-256 of the secret's bytes)`);
    hashedSecret = reg.hashedSecret.toLowerCase();
  }
  if (reg.publicClient && hashedSecret) throw new ClientRegistrationError(`client ${id}: a public client has no secret (it proves itself with PKCE)`);
  if (!reg.publicClient && !hashedSecret) throw new ClientRegistrationError(`client ${id}: a confidential client needs a secret`);
  const accessTokenTtlSeconds = reg.accessTokenTtlSeconds ?? DEFAULT_ACCESS_TOKEN_TTL_SECONDS;
  if (!Number.isInteger(accessTokenTtlSeconds) || accessTokenTtlSeconds < 60 || accessTokenTtlSeconds > MAX_ACCESS_TOKEN_TTL_SECONDS) {
    throw new ClientRegistrationError(`client ${id}: access token lifetime must be 60–${MAX_ACCESS_TOKEN_TTL_SECONDS} seconds`);
  }
  const refreshTokenTtlSeconds = reg.refreshTokenTtlSeconds ?? 0;
  if (!Number.isInteger(refreshTokenTtlSeconds) || refreshTokenTtlSeconds < 0 || refreshTokenTtlSeconds > 10 * 365 * 86_400) {
    throw new ClientRegistrationError(`client ${id}: refresh token lifetime must be 0 (until revoked) to ten years, in seconds`);
  }
  const pairwiseSubjects = reg.pairwiseSubjects ?? false;
  const pairwiseRotationSeconds = reg.pairwiseRotationSeconds ?? 0;
  if (pairwiseRotationSeconds !== 0) {
    if (!pairwiseSubjects) throw new ClientRegistrationError(`client ${id}: a pairwise rotation period needs pairwise subjects`);
    if (!Number.isInteger(pairwiseRotationSeconds) || pairwiseRotationSeconds < MIN_PAIRWISE_ROTATION_SECONDS || pairwiseRotationSeconds > MAX_PAIRWISE_ROTATION_SECONDS) {
      throw new ClientRegistrationError(`client ${id}: the pairwise rotation period must be 0 (never) or ${MIN_PAIRWISE_ROTATION_SECONDS}–${MAX_PAIRWISE_ROTATION_SECONDS} seconds`);
    }
  }
  const allowedResources = [...new Set(reg.allowedResources ?? [])].map((r) => checkAllowedResource(id, r));
  if (allowedResources.join(' ').length > 4000) throw new ClientRegistrationError(`client ${id}: too many resources`);
  const revealing = pairwiseSubjects ? reg.allowedScopes.filter(revealsUid) : [];
  if (revealing.length) throw new ClientRegistrationError(`client ${id}: a client with pairwise subjects may not be allowed ${revealing.join(' ')} (it would show the account's uid); use profile:email, profile:locale, … instead`);
  return {
    id, name, imageUri, redirectUri: redirectUris[0]!, redirectUris, hashedSecret, hashedSecretPrevious: null,
    trusted: reg.trusted, publicClient: reg.publicClient, canGrant: reg.canGrant, allowedScopes: [...new Set(reg.allowedScopes)],
    localRedirects: reg.localRedirects ?? false, accessTokenTtlSeconds, refreshTokenTtlSeconds,
    rotateRefreshTokens: reg.rotateRefreshTokens ?? false, pairwiseSubjects, pairwiseRotationSeconds,
    jwtAccessTokens: reg.jwtAccessTokens ?? false, allowedResources, createdAt: reg.createdAt,
  };
}
