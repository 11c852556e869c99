import { deriveTokenKeys, randomHex, type TokenType } from '@tessera/protocol';

/** A freshly minted onepw token: `data` goes to the client once; only id and keys are kept. */
export interface NewToken {
  data: string;
  id: string;
  authKey: string;
  bundleKey: string;
}

/** protocol.md §2.1: 32 random bytes of token data; id, authKey and bundleKey derived by HKDF. */
export function mintToken(type: TokenType): NewToken {
  const data = randomHex(32);
  const { tokenId, authKey, bundleKey } = deriveTokenKeys(type, data);
  return { data, id: tokenId, authKey, bundleKey };
}
