// Every derivation against the test vectors of protocol.md §3, byte for byte.
import { describe, expect, it } from 'vitest';
import {
  bearerHeader, createKeyBundle, deriveTokenKeys, deriveVerifier, fromHex, hawkHeader, hawkMac, hawkPayloadHash,
  namedHkdf, openKeyBundle, rawHkdf, stretchV1, stretchV2, toHex, unwrapKb, utf8, xor, parseHawkHeader,
} from './index.js';

const V = {
  email: 'andré@example.org',
  password: 'pässwörd',
  quickStretchedPW: 'e4e8889bd8bd61ad6de6b95c059d56e7b50dacdaf62bd84644af7e2add84345d',
  authPW: '247b675ffb4c46310bc87e26d712153abe5e1c90ef00a4784594f97ef54f2375',
  unwrapBkey: 'de6a2648b78284fcb9ffa81ba95803309cfba7af583c01a8a1a63e567234dd28',
  bigStretchedPW: '441509e25c92ee103d5a1a874e6f155df25a44d06e61c894616c9e85181dba97',
  verifyHash: 'a4765bf103dc057f4cf4bc2c131ddb6716e8a4333cc55e1d3c449f31f0eec4f1',
  wrapwrapKey: '3ebea117efa9faf57ce195899b2905058368e7760cc26ea58a2a1be0da7fb287',
  wrapWrapKb: '404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f',
  keyFetchToken: '808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f',
  kftId: '3d0a7c02a15a62a2882f76e39b6494b500c022a8816e048625a495718998ba60',
  kftAuthKey: '87b8937f61d38d0e29cd2d5600b3f4da0aa48ac41de36a0efe84bb4a9872ceb7',
  kftBundleKey: '14f338a9e8c6324d9e102d4e6ee83b209796d5c74bb734a410e729e014a4a546',
  respHMACkey: 'f824d2953aab9faf51a1cb65ba9e7f9e5bf91c8d8fd1ac1c8c2d31853a8a1210',
  respXORkey: 'ce7d7aa77859b2359932970bbe2101f2e80d01faf9191bd5ee52181d2f0b78098281ba8cff3925433a89f7c3095e0c89900a469d60790c833281c4df1a11c763',
  kA: '202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f',
  wrapkB: '7effe354abecbcb234a8dfc2d7644b4ad339b525589738f2d27341bb8622ecd8',
  bundle: 'ee5c58845c7c9412b11bbd20920c2fddd83c33c9cd2c2de2d66b222613364636fc7e59d854d599f10e212801de3a47c34333f3b838ee3471e0f285649c332bbb4c17f42a0b319bbba327d2b326ad23e937219b4de32e3ec7b3e3f740522ad6ef',
  kB: 'a095c51c1c6e384e8d5777d97e3c487a4fc2128a00ab395a73d57fedf41631f0',
  sessionToken: 'a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf',
  sessionId: 'c0a29dcf46174973da1378696e4c82ae10f723cf4f4d9f75e39f4ae3851595ab',
  sessionAuthKey: '9d8f22998ee7f5798b887042466b72d53e56ab0c094388bf65831f702d2febc0',
  sessionBundleKey: '37e3fceb754cb57362a8bd60a2f2344a7c285d17ddb2b57733640ce6d1b6a7a8',
};

describe('onepw vectors (protocol.md §3.1)', () => {
  it('encodes the inputs as the vectors say', () => {
    expect(toHex(utf8(V.email))).toBe('616e6472c3a9406578616d706c652e6f7267');
    expect(toHex(utf8(V.password))).toBe('70c3a4737377c3b67264');
  });

  it('stretches v1 on the client', async () => {
    const c = await stretchV1(V.email, V.password);
    expect(c).toEqual({ quickStretchedPW: V.quickStretchedPW, authPW: V.authPW, unwrapBKey: V.unwrapBkey });
  });

  it('derives verifyHash and wrapwrapKey from the raw scrypt bytes', () => {
    const { verifyHash, wrapwrapKey } = deriveVerifier(fromHex(V.bigStretchedPW));
    expect(verifyHash).toBe(V.verifyHash);
    expect(toHex(wrapwrapKey)).toBe(V.wrapwrapKey);
    expect(toHex(xor(fromHex(V.wrapkB), wrapwrapKey))).toBe(V.wrapWrapKb);
  });

  it('derives keyFetchToken and sessionToken keys', () => {
    expect(deriveTokenKeys('keyFetchToken', V.keyFetchToken)).toEqual({
      tokenId: V.kftId, authKey: V.kftAuthKey, bundleKey: V.kftBundleKey,
    });
    expect(deriveTokenKeys('sessionToken', V.sessionToken)).toEqual({
      tokenId: V.sessionId, authKey: V.sessionAuthKey, bundleKey: V.sessionBundleKey,
    });
    expect(bearerHeader('sessionToken', V.sessionId)).toBe(`Bearer fxs_${V.sessionId}`);
  });

  it('builds and opens the key bundle', () => {
    const km = namedHkdf(fromHex(V.kftBundleKey), 'account/keys', 96);
    expect(toHex(km.subarray(0, 32))).toBe(V.respHMACkey);
    expect(toHex(km.subarray(32))).toBe(V.respXORkey);
    expect(createKeyBundle(V.kftBundleKey, V.kA, V.wrapkB)).toBe(V.bundle);
    const opened = openKeyBundle(V.kftBundleKey, V.bundle);
    expect(opened).toEqual({ kA: V.kA, wrapKb: V.wrapkB });
    expect(unwrapKb(opened.wrapKb, V.unwrapBkey)).toBe(V.kB);
  });

  it('refuses a bundle whose MAC does not verify', () => {
    const tampered = V.bundle.slice(0, 10) + (V.bundle[10] === '0' ? '1' : '0') + V.bundle.slice(11);
    expect(() => openKeyBundle(V.kftBundleKey, tampered)).toThrow(/MAC/);
  });
});

describe('v2 stretching (protocol.md §3.2)', () => {
  it('matches the auth-client vector', async () => {
    const c = await stretchV2('identity.mozilla.com/picl/v1/quickStretchV2:0123456789abcdef0123456789abcdef', V.password);
    expect(c).toEqual({
      quickStretchedPW: '1962d132874d2be60129f21229c42205e75661b08b7e657c4997972475459e41',
      authPW: 'd278c764bd1852a14bfc4e9d8c1682b4f1a57edb9a9372bf8c370cc41592155b',
      unwrapBKey: '616616095eff30032abf6a47df30d9a3fc799d8af5e8519905c1601170553493',
    });
  });

  it('matches the PyFxA vector', async () => {
    const c = await stretchV2('identity.mozilla.com/picl/v1/quickStretchV2:c2dc400c9cc1a93dd3cd3af1b05ebd60', V.password);
    expect(c.quickStretchedPW).toBe('b38b6a81c851c34343899bb1c64bd179cdddea840260849444b0b91b413a80de');
    expect(c.authPW).toBe('28c81379c31905d16f9aa9c63fcf0950094e413e16a9c9be41f52dbb09af518e');
    expect(c.unwrapBKey).toBe('e1c1f362437c8977e2ad8372cafcaf873df7dce30ae351bcd262af05e84caa92');
  });

  it('rejects a malformed v2 salt', async () => {
    await expect(stretchV2('identity.mozilla.com/picl/v1/quickStretchV2:0123', 'x')).rejects.toThrow(TypeError);
  });
});

describe('extra bundle and HKDF vectors (protocol.md §3.3)', () => {
  it('opens the auth-client unbundle vector', () => {
    const out = openKeyBundle(
      'dedd009a8275a4f672bb4b41e14a117812c0b2f400c85fa058e0293f3f45726a',
      'df4717238a738501bd2ad8f7114ef193ea69751a40108149bfb88a5643a8d683a1e75b705d4db135130f0896dbac0819ab7d54334e0cd4f9c945e0a7ada91899756cedf4384be404844050270310bc2b396f100eeda0c7b428cfe77c40a873ae',
    );
    expect(out).toEqual({
      kA: '939282904b808c6003ea31aeb14bc766d2ab70ba7dcaa54f820efcf4762b9619',
      wrapKb: '849ac9f71643ace46dcdd384633ec1bffe565852806ee2f859c3eba7fafeafec',
    });
  });

  it('matches the namespaced HKDF vectors', () => {
    expect(toHex(namedHkdf(fromHex('4a9cbe5ae7190a7bb7cc54d5d84f5e4ba743904f8a764933b72f10260067375a'), 'keyFetchToken', 96))).toBe(
      'f4df04ffb79db35e94e4881719a6f145f9206e8efea17fc9f02a5ce09cbfac1e829a935f34111d75e0d16b7aa178e2766759eedb6f623c0babd2abcfea82bc12af75f6aa543a8ba7e0a029f87c785c4af0ad03889f7437f735b5256a88fc73fd',
    );
    expect(toHex(namedHkdf(fromHex('ba0a107dab60f3b065ff7a642d14fe824fbd71bc5c99087e9e172a1abd1634f1'), 'account/keys', 96))).toBe(
      '17ab463653a94c9a6419b48781930edefe500395e3b4e7879a2be1599975702285de16c3218a126404668bf9b7acfb6ce2b7e03c8889047ba48b8b854c6d8beb3ae100e145ca6d69cb519a872a83af788771954455716143bc08225ea8644d85',
    );
  });

  it('matches the salted HKDF vector', () => {
    const out = rawHkdf(
      fromHex('c16d46c31bee242cb31f916e9e38d60b76431d3f5304549cc75ae4bc20c7108c'),
      fromHex('00f000000000000000000000000000000000000000000000000000000000034d'),
      'identity.mozilla.com/picl/v1/mainKDF', 64,
    );
    expect(toHex(out)).toBe(
      '00f9b71800ab5337d51177d8fbc682a3653fa6dae5b87628eeec43a18af59a9d6ea660be9c89ec355397f89afb282ea0bf21095760c8c5009bbcc894155bbe2a',
    );
  });
});

describe('Hawk vectors (protocol.md §3.4)', () => {
  const key = 'werxhqb98rpaxn39848xrunpaw3489ru';
  const base = { method: 'POST', resource: '/somewhere/over/the/rainbow', host: 'example.net', port: 443, ts: 1353809207, nonce: 'Ygvqdz' };

  it('hashes payloads and signs headers', () => {
    const emptyHash = hawkPayloadHash('text/plain', '');
    expect(emptyHash).toBe('q/t+NNAkQZNlq/aAD6PlexImwQTxwgT2MahfTa9XRLA=');
    expect(hawkMac(key, { ...base, hash: emptyHash })).toBe('ITZtYMyfEkprrB60U4wPxl+BgV8S/kXb+gbcqt0TfCk=');
    const hash = hawkPayloadHash('text/plain', 'something to write about');
    expect(hash).toBe('2QfCt3GuY9HQnHWyWD3wX68ZOKbynqlfYmuO2ZBRqtY=');
    expect(hawkMac(key, { ...base, hash })).toBe('T8QFs1YhO9eqsXWKURQgL3vO8XbZIveFYiF/cTYBPYI=');
  });

  it('produces the header format and parses it back', () => {
    const header = hawkHeader({
      method: 'POST', url: 'https://example.net/somewhere/over/the/rainbow', credentials: { id: '123456', key: utf8(key) },
      payload: 'something to write about', contentType: 'text/plain', ts: 1353809207, nonce: 'Ygvqdz',
    });
    expect(header).toBe('Hawk id="123456", ts="1353809207", nonce="Ygvqdz", hash="2QfCt3GuY9HQnHWyWD3wX68ZOKbynqlfYmuO2ZBRqtY=", mac="T8QFs1YhO9eqsXWKURQgL3vO8XbZIveFYiF/cTYBPYI="');
    expect(parseHawkHeader(header)).toEqual({
      id: '123456', ts: '1353809207', nonce: 'Ygvqdz', hash: '2QfCt3GuY9HQnHWyWD3wX68ZOKbynqlfYmuO2ZBRqtY=', mac: 'T8QFs1YhO9eqsXWKURQgL3vO8XbZIveFYiF/cTYBPYI=',
    });
  });

  it('rejects headers outside the grammar', () => {
    expect(parseHawkHeader('Hawk id="1", id="2"')).toBeNull();
    expect(parseHawkHeader('Hawk bogus="1"')).toBeNull();
    expect(parseHawkHeader('Hawk id="a\\"b"')).toBeNull();
    expect(parseHawkHeader('Bearer x')).toBeNull();
    expect(parseHawkHeader(`Hawk id="${'a'.repeat(5000)}"`)).toBeNull();
  });
});
