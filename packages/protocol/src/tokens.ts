import { fromHex, toHex } from './bytes.js';
import { namedHkdf } from './kdf.js';

/** The five onepw tokens, their HKDF names and their Bearer prefixes (protocol.md §2.1). */
export const TOKEN_TYPES = {
  sessionToken: { prefix: 'fxs_' },
  keyFetchToken: { prefix: 'fxk_' },
  accountResetToken: { prefix: 'fxar_' },
  passwordForgotToken: { prefix: 'fxpf_' },
  passwordChangeToken: { prefix: 'fxpc_' },
} as const;

export type TokenType = keyof typeof TOKEN_TYPES;

export interface TokenKeys {
  /** The public id: database key, Hawk id and Bearer body. */
  tokenId: string;
  /** The Hawk MAC key. */
  authKey: string;
  /** Encrypts key bundles (keyFetchToken only). */
  bundleKey: string;
}

/** material = HKDF(tokenData, tokenType, 96), split 32/32/32 into id, authKey, bundleKey. */
export function deriveTokenKeys(type: TokenType, tokenData: string | Uint8Array): TokenKeys {
  const data = typeof tokenData === 'string' ? fromHex(tokenData) : tokenData;
  const material = namedHkdf(data, type, 96);
  return {
    tokenId: toHex(material.subarray(0, 32)),
    authKey: toHex(material.subarray(32, 64)),
    bundleKey: toHex(material.subarray(64, 96)),
  };
}

/** `Bearer fxs_<tokenId>`: the prefixed form the current clients send. */
export function bearerHeader(type: TokenType, tokenId: string): string {
  return `Bearer ${TOKEN_TYPES[type].prefix}${tokenId}`;
}
