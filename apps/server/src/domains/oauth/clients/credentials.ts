import { appError } from '@tessera/errors';
import { constantTimeStringEqual } from '@tessera/protocol';
import { hashToken, HEX64 } from '../token-hash.js';
import type { OAuthClient } from './store.js';

// How a client proves who it is at /token, /introspect and /destroy (RFC 6749 §2.3.1): Basic
// credentials or `client_id` (and `client_secret`) in the body; a public client by its id alone.

/** A client's claimed identity, before it is checked against the registry. */
export interface ClientCredentials {
  clientId: string;
  secret: string | undefined;
}

/** `Authorization: Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 §2.3.1), or null. */
export function basicCredentials(header: string | undefined): { clientId: string; secret: string } | null {
  if (!header || !/^Basic /i.test(header)) return null;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw appError('INVALID_PARAMETER', { validation: { source: 'headers', keys: ['authorization'], message: 'Basic credentials must be client_id:client_secret' } });
  try {
    return { clientId: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
  } catch {
    throw appError('INVALID_PARAMETER', { validation: { source: 'headers', keys: ['authorization'], message: 'Basic credentials are not URL-encoded' } });
  }
}

/**
 * Who the caller says it is: Basic credentials or `client_id` (and `client_secret`) in the body,
 * never a secret both ways nor two different ids. Reads nothing.
 */
export function clientCredentials(body: { client_id?: string; client_secret?: string }, authorization: string | undefined): ClientCredentials {
  const basic = basicCredentials(authorization);
  if (basic && body.client_secret !== undefined) {
    throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['client_secret'], message: 'send the client secret once: Basic or client_secret, not both' } });
  }
  if (basic && body.client_id !== undefined && body.client_id.toLowerCase() !== basic.clientId.toLowerCase()) {
    throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['client_id'], message: 'client_id differs from the Basic credentials' } });
  }
  const clientId = basic?.clientId ?? body.client_id;
  if (!clientId) throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['client_id'], message: 'client_id is required' } });
  return { clientId, secret: basic?.secret ?? body.client_secret };
}

/**
 * Whether `secret` (64 hex) is the confidential client's secret, or its previous one during a
 * rotation; compared as hashes, in constant time, both always compared.
 */
export function clientSecretMatches(client: OAuthClient, secret: string): boolean {
  if (client.publicClient || client.hashedSecret === null || !HEX64.test(secret)) return false;
  const hashed = hashToken(secret.toLowerCase());
  const current = constantTimeStringEqual(hashed, client.hashedSecret);
  const previous = client.hashedSecretPrevious !== null && constantTimeStringEqual(hashed, client.hashedSecretPrevious);
  return current || previous;
}

/** The client, read as `credentials` name it (null: unknown), if they prove it: 400/101 unknown, 400/102 wrong secret. */
export function verifyClient(client: OAuthClient | null, credentials: ClientCredentials): OAuthClient {
  if (!client) throw appError('UNKNOWN_CLIENT_ID', { clientId: credentials.clientId });
  const { secret } = credentials;
  if (client.publicClient) {
    if (secret !== undefined) throw appError('INCORRECT_CLIENT_SECRET', { clientId: client.id }, 'A public client has no secret: prove the code with PKCE');
  } else if (secret === undefined || !clientSecretMatches(client, secret)) {
    throw appError('INCORRECT_CLIENT_SECRET', { clientId: client.id });
  }
  return client;
}
