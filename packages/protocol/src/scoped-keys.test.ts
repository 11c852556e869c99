import { describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair } from 'jose';
import { decryptKeysBundle, deriveScopedKey, encryptKeysBundle, parseKeysJwk } from './scoped-keys.js';

// protocol.md §3.6: the scoped-key derivation vectors and the keys_jwe vector.

const UID = 'aeaa1725c7a24ff983c6295725d5fc9b';
const ZERO = '0'.repeat(64);
const b64url = (s: string) => Buffer.from(s).toString('base64url');

describe('scoped keys (protocol.md §3.6)', () => {
  it('derives the general vectors', () => {
    expect(deriveScopedKey({
      kB: '8b2e1303e21eee06a945683b8d495b9bf079ca30baa37eb8392d9ffa4767be45', uid: UID, identifier: 'app_key:https%3A//example.com',
      keyRotationSecret: '517d478cb4f994aa69930416648a416fdaa1762c5abf401a2acf11a0f185e98d', keyRotationTimestamp: 1510726317000,
    })).toEqual({ kty: 'oct', k: 'Kkbk1_Q0oCcTmggeDH6880bQrxin2RLu5D00NcJazdQ', kid: '1510726317-Voc-Eb9IpoTINuo9ll7bjA' });
    expect(deriveScopedKey({
      kB: 'bc3851e9e610f631df94d7883d5defd5e5f55ab520bd5a9ae33dae26575c6b1a', uid: UID, identifier: 'https://identity.mozilla.com/apps/notes',
      keyRotationSecret: ZERO, keyRotationTimestamp: 1494446722583,
    })).toEqual({ kty: 'oct', k: 'b9SaftekqPfXDOEeZx8714ktkcG9mBbNnKIyoUmhShE', kid: '1494446723-sXWpWP2sQkP-KsjIPGm1gg' });
  });

  it('derives the legacy Sync vectors', () => {
    const kB = 'eaf9570b7219a4187d3d6bf3cec2770c2e0719b7cc0dfbb38243d6f1881675e9';
    const k = 'DW_ll5GwX6SJ5GPqJVAuMUP2t6kDqhUulc2cbt26xbTcaKGQl-9l29FHAQ7kUiJETma4s9fIpEHrt909zgFang';
    expect(deriveScopedKey({ kB, uid: UID, identifier: 'https://identity.mozilla.com/apps/oldsync', keyRotationSecret: ZERO, keyRotationTimestamp: 1510726317123 }))
      .toEqual({ kty: 'oct', k, kid: '1510726317123-IqQv4onc7VcVE1kTQkyyOw' });
    expect(deriveScopedKey({ kB, uid: UID, identifier: 'https://identity.thunderbird.net/apps/sync', keyRotationSecret: ZERO, keyRotationTimestamp: 1715043913541 }))
      .toEqual({ kty: 'oct', k, kid: '1715043913541-IqQv4onc7VcVE1kTQkyyOw' });
    expect(deriveScopedKey({ kB: '2ee722fdd8ccaa721bdeb2d1b76560efef705b04349d9357c3e592cf4906e075', uid: UID, identifier: 'https://identity.mozilla.com/apps/oldsync', keyRotationSecret: ZERO, keyRotationTimestamp: 1510726317123 }))
      .toEqual({ kty: 'oct', k: 'fwM5VZu0Spf5XcFRZYX2zk6MrqZP7zvovCBcvuKwgYMif3hz98FHmIVa3qjKjrW0J244Zj-P5oWaOcQbvypmpw', kid: '1510726317123-BAik7hEOdpGnPZnPBSdaTg' });
  });

  it('refuses malformed inputs', () => {
    const ok = { kB: 'a'.repeat(64), uid: UID, identifier: 'https://x.example/app', keyRotationSecret: ZERO, keyRotationTimestamp: 1510726317000 };
    expect(() => deriveScopedKey({ ...ok, kB: 'a'.repeat(63) })).toThrow(/kB/);
    expect(() => deriveScopedKey({ ...ok, keyRotationTimestamp: 1510726317 })).toThrow(/13 digits/);
    expect(() => deriveScopedKey({ ...ok, identifier: 'short' })).toThrow(/identifier/);
    expect(() => deriveScopedKey({ ...ok, uid: 'x' })).toThrow(/uid/);
  });

  it('decrypts the keys_jwe vector with the relying party\'s key', async () => {
    const priv = { kty: 'EC', crv: 'P-256', d: 'KXAjjEr4KT9UlYI4BE0BefVdoxP8vqO389U7lQlCigs', x: 'SiBn6uebjigmQqw4TpNzs3AUyCae1_sG2b9Fzhq3Fyo', y: 'q99Xq1RWNTFpk99pdQOSjUvwELss51PkmAGCXhLfMV4' };
    const jwe = 'eyJhbGciOiJFQ0RILUVTIiwiZW5jIjoiQTI1NkdDTSIsImVwayI6eyJjcnYiOiJQLTI1NiIsImt0eSI6IkVDIiwieCI6Ik40elBSYXpCODd2cGVCZ0h6RnZrdmRfNDhvd0ZZWXhFVlhSTXJPVTZMRG8iLCJ5IjoiNG5jVXhONnhfeFQxVDFrenlfU19WMmZZWjd1VUpUX0hWUk5aQkxKUnN4VSJ9fQ.._0sYf7HdWuRv2cM0.U5ZK5BYZWhLluS7q4y4ZFW1t_sSPt4me-5Ltscs1dWpoPnIZa3xEng2xsUOBaHfBra6m4wdgzrg6qINhBz0LuDwAfrHOtfRlpqeV3nrKhas1mGEQzr6lD4zBVYpmF_chm61IySnVxprsA1BulinIER2EIJbA.3Lh7cwCocbA2VkBBnsKgXA';
    expect(await decryptKeysBundle(jwe, priv)).toEqual({ app_key: { k: 'Kkbk1_Q0oCcTmggeDH6880bQrxin2RLu5D00NcJazdQ', kid: '1510726317-Voc-Eb9IpoTINuo9ll7bjA', kty: 'oct' } });
    // The keys_jwk vector reads as the public half.
    const keysJwk = 'eyJjcnYiOiJQLTI1NiIsImt0eSI6IkVDIiwieCI6IlNpQm42dWViamlnbVFxdzRUcE56czNBVXlDYWUxX3NHMmI5RnpocTNGeW8iLCJ5IjoicTk5WHExUldOVEZwazk5cGRRT1NqVXZ3RUxzczUxUGttQUdDWGhMZk1WNCJ9';
    expect(parseKeysJwk(keysJwk)).toEqual({ kty: 'EC', crv: 'P-256', x: priv.x, y: priv.y });
    // Encrypting to it: the relying party decrypts the same bundle back.
    const bundle = { app_key: { kty: 'oct' as const, k: 'Kkbk1_Q0oCcTmggeDH6880bQrxin2RLu5D00NcJazdQ', kid: '1510726317-Voc-Eb9IpoTINuo9ll7bjA' } };
    const mine = await encryptKeysBundle(bundle, keysJwk);
    expect(mine.split('.')).toHaveLength(5);
    expect(mine.split('.')[1]).toBe('');
    expect(JSON.parse(Buffer.from(mine.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg: 'ECDH-ES', enc: 'A256GCM' });
    expect(await decryptKeysBundle(mine, priv)).toEqual(bundle);
  });

  it('refuses keys_jwk that are not P-256 public keys', async () => {
    const { privateKey } = await generateKeyPair('ECDH-ES', { crv: 'P-384', extractable: true });
    const p384 = await exportJWK(privateKey);
    expect(() => parseKeysJwk(b64url(JSON.stringify({ kty: p384.kty, crv: p384.crv, x: p384.x, y: p384.y })))).toThrow(/P-256/);
    const { privateKey: p256 } = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
    const withD = b64url(JSON.stringify(await exportJWK(p256)));
    expect(() => parseKeysJwk(withD)).toThrow(/private/);
    expect(() => parseKeysJwk(b64url(JSON.stringify({ kty: 'RSA', n: 'x', e: 'AQAB' })))).toThrow(/P-256/);
    expect(() => parseKeysJwk('%%%')).toThrow();
  });
});
