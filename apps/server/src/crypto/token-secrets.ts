import { createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import type { TokenType } from '@tessera/protocol';

// How onepw token rows are keyed (issue 9, hole 4). A token's id is a credential (prefixed Bearer
// presents it alone) and its authKey is the Hawk key, so neither is stored: a row is keyed by
// HMAC(idKey, type:id) — its handle — and keeps authKey XORed with HMAC(sealKey, type:id). Both
// keys come from AUTH_SECRET by HKDF under labels of their own, and the id they are computed from
// is not stored either: a read of the database alone can present no token, as Bearer or as Hawk.

const HANDLE_LABEL = 'tessera/v1/token-handle';
const SEAL_LABEL = 'tessera/v1/token-auth-key-seal';

function subKey(secret: string, label: string): KeyObject {
  return createSecretKey(Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), label, 32)));
}

/** The keys token rows are stored under, derived once from the server secret. */
export class TokenSecrets {
  private readonly handleKey: KeyObject;
  private readonly sealKey: KeyObject;

  constructor(authSecret: string) {
    if (!authSecret) throw new Error('token rows need the server secret (AUTH_SECRET)');
    this.handleKey = subKey(authSecret, HANDLE_LABEL);
    this.sealKey = subKey(authSecret, SEAL_LABEL);
  }

  /**
   * The row key of a token id (64 lowercase hex), and the handle that names the token to clients:
   * it cannot be presented, since the server would HMAC it again. One HMAC-SHA256 per lookup.
   */
  handle(type: TokenType, tokenId: string): string {
    return createHmac('sha256', this.handleKey).update(`${type}:${tokenId}`).digest('hex');
  }

  /**
   * authKey XOR HMAC(sealKey, type:id): the stored form of a Hawk key. The pad is unique to the
   * token and needs both the secret and the (unstored) id, so the stored value reveals nothing.
   */
  sealAuthKey(type: TokenType, tokenId: string, authKey: string): string {
    const pad = createHmac('sha256', this.sealKey).update(`${type}:${tokenId}`).digest();
    const key = Buffer.from(authKey, 'hex');
    if (key.length !== pad.length) throw new Error('an authKey is 32 bytes');
    for (let i = 0; i < pad.length; i++) pad[i] = pad[i]! ^ key[i]!;
    return pad.toString('hex');
  }

  /** The authKey back from its stored form, given the id a request presented (XOR is its own inverse). */
  unsealAuthKey(type: TokenType, tokenId: string, sealed: string): string {
    return this.sealAuthKey(type, tokenId, sealed);
  }
}
