// Recovery keys against protocol.md §3.5, byte for byte, and the Crockford rendering.
import { describe, expect, it } from 'vitest';
import {
  CROCKFORD_ALPHABET, crockfordDecode, crockfordEncode, decryptRecoveryData, encryptRecoveryData, fromHex, generateRecoveryKey,
  parseRecoveryKey, recoveryEncryptionKey, recoveryKeyId, toHex,
} from './index.js';

const V = {
  uid: 'aaaaabbbbbcccccdddddeeeeefffff00',
  key: '00443214c74254b635cf84653a56d7c675be77df',
  kB: '000000111111222222333333444444555555666666777777888888999999ABCD',
  iv: 'eeddccbbaa99887766554433',
  recoveryKeyId: '6aa248931704886f54ac64b81b111bc0',
  encKey: '58c77394e516799304a06fa370828a2570b285ea7e461ed4d792830eeffe6d1a',
  recoveryData: 'eyJlbmMiOiJBMjU2R0NNIiwiYWxnIjoiZGlyIiwia2lkIjoiNmFhMjQ4OTMxNzA0ODg2ZjU0YWM2NGI4MWIxMTFiYzAifQ..7t3Mu6qZiHdmVUQz.qoXWfU77FBV67Pyy_GXAkoSuAbksIqAXZd2tkq48iD3u_qWEEAeYx-M3m2G373zes3OXsSZdJIGRFmd8bC9s4ZvN3kF3A6vK5g.yT7bkdF8AYC6ecwsvRCI7A',
};

describe('recovery key (protocol.md §3.5)', () => {
  const key = fromHex(V.key);

  it('derives the fingerprint and the encryption key of the vectors', () => {
    expect(recoveryKeyId(key, V.uid)).toBe(V.recoveryKeyId);
    expect(toHex(recoveryEncryptionKey(key, V.uid))).toBe(V.encKey);
  });

  it('encrypts kB to the exact recoveryData of the vectors and opens it again', async () => {
    expect(await encryptRecoveryData(key, V.uid, { kB: V.kB }, fromHex(V.iv))).toBe(V.recoveryData);
    expect(await decryptRecoveryData(key, V.uid, V.recoveryData)).toEqual({ kB: V.kB });
  });

  it('refuses recoveryData under another key or another account', async () => {
    const other = generateRecoveryKey();
    await expect(decryptRecoveryData(other, V.uid, V.recoveryData)).rejects.toThrow();
    await expect(decryptRecoveryData(key, 'aaaaabbbbbcccccdddddeeeeefffff01', V.recoveryData)).rejects.toThrow();
  });

  it('makes 20-byte keys whose rendering is 32 characters starting with A (the version marker)', () => {
    for (let i = 0; i < 50; i++) {
      const k = generateRecoveryKey();
      expect(k.length).toBe(20);
      const text = crockfordEncode(k);
      expect(text).toMatch(new RegExp(`^A[${CROCKFORD_ALPHABET}]{31}$`));
      expect(toHex(parseRecoveryKey(text))).toBe(toHex(k));
    }
  });

  it('reads Crockford base32 as people type it', () => {
    const text = crockfordEncode(key);
    expect(text).toBe('0123456789ABCDEFGHJKMNPQRSTVWXYZ');
    expect(toHex(crockfordDecode('0123 4567-89ab cdef ghjk mnpq rstv wxyz'))).toBe(V.key);
    expect(toHex(crockfordDecode('O123456789ABCDEFGHJKMNPQRSTVWXYZ'.replace('1', 'l')))).toBe(V.key);
    expect(() => crockfordDecode('0123456789ABCDEFGHJKMNPQRSTVWXYU')).toThrow(/not a Crockford/);
    expect(() => parseRecoveryKey('A0000000')).toThrow(RangeError);
  });
});
