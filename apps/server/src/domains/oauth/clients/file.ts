import { readFileSync } from 'node:fs';
import { ClientRegistrationError, type ClientRegistration } from './registration.js';

// OAUTH_CLIENTS_FILE: the clients registered (or brought in line, the file wins) at every start.

const FILE_KEYS = new Set(['id', 'name', 'imageUri', 'redirectUris', 'hashedSecret', 'trusted', 'public', 'canGrant', 'allowedScopes',
  'localRedirects', 'accessTokenTtlSeconds', 'refreshTokenTtlSeconds', 'rotateRefreshTokens', 'pairwiseSubjects', 'pairwiseRotationSeconds',
  'jwtAccessTokens', 'allowedResources']);

/**
 * Reads OAUTH_CLIENTS_FILE: a JSON array of clients, e.g.
 * `[{"id": "5882386c6d801776", "name": "Firefox", "redirectUris": ["urn:ietf:wg:oauth:2.0:oob:oauth-redirect-webchannel"],
 *    "public": true, "trusted": true, "canGrant": true, "allowedScopes": ["profile", "https://identity.mozilla.com/apps/oldsync"]}]`.
 * Confidential clients carry `hashedSecret` (never the secret itself). Every entry is checked; any
 * fault stops the start with the entry and the reason.
 */
export function parseClientsFile(text: string, now: number, source = 'OAUTH_CLIENTS_FILE'): ClientRegistration[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ClientRegistrationError(`${source}: not JSON (${(err as Error).message})`);
  }
  if (!Array.isArray(data)) throw new ClientRegistrationError(`${source}: must hold a JSON array of clients`);
  const seen = new Set<string>();
  return data.map((entry: unknown, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new ClientRegistrationError(`${source}[${i}]: must be an object`);
    const e = entry as Record<string, unknown>;
    for (const k of Object.keys(e)) if (!FILE_KEYS.has(k)) throw new ClientRegistrationError(`${source}[${i}]: unknown field ${k}`);
    const str = (k: string) => {
      if (typeof e[k] !== 'string') throw new ClientRegistrationError(`${source}[${i}]: ${k} must be a string`);
      return e[k] as string;
    };
    const flag = (k: string) => {
      if (e[k] === undefined) return false;
      if (typeof e[k] !== 'boolean') throw new ClientRegistrationError(`${source}[${i}]: ${k} must be true or false`);
      return e[k] as boolean;
    };
    const strings = (k: string) => {
      if (!Array.isArray(e[k]) || !(e[k] as unknown[]).every((s) => typeof s === 'string')) throw new ClientRegistrationError(`${source}[${i}]: ${k} must be an array of strings`);
      return e[k] as string[];
    };
    const num = (k: string) => {
      if (e[k] === undefined) return undefined;
      if (typeof e[k] !== 'number') throw new ClientRegistrationError(`${source}[${i}]: ${k} must be a number`);
      return e[k] as number;
    };
    const id = str('id').toLowerCase();
    if (seen.has(id)) throw new ClientRegistrationError(`${source}[${i}]: client ${id} appears twice`);
    seen.add(id);
    return {
      id, name: str('name'), imageUri: e.imageUri === undefined ? '' : str('imageUri'), redirectUris: strings('redirectUris'),
      hashedSecret: e.hashedSecret === undefined ? null : str('hashedSecret'), trusted: flag('trusted'), publicClient: flag('public'),
      canGrant: flag('canGrant'), allowedScopes: e.allowedScopes === undefined ? [] : strings('allowedScopes'),
      localRedirects: flag('localRedirects'), accessTokenTtlSeconds: num('accessTokenTtlSeconds'),
      refreshTokenTtlSeconds: num('refreshTokenTtlSeconds'), rotateRefreshTokens: flag('rotateRefreshTokens'),
      pairwiseSubjects: flag('pairwiseSubjects'), pairwiseRotationSeconds: num('pairwiseRotationSeconds'), jwtAccessTokens: flag('jwtAccessTokens'),
      allowedResources: e.allowedResources === undefined ? [] : strings('allowedResources'), createdAt: now,
    };
  });
}

export function readClientsFile(path: string, now: number): ClientRegistration[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ClientRegistrationError(`OAUTH_CLIENTS_FILE ${path} cannot be read: ${(err as Error).message}`);
  }
  return parseClientsFile(text, now, `OAUTH_CLIENTS_FILE ${path}`);
}
