import { constantTimeStringEqual, deriveVerifier, fromHex, isV2ClientSalt, randomHex, toHex, xor } from '@tessera/protocol';
import { appError } from '@tessera/errors';
import type { ScryptPool } from '../../crypto/scrypt-pool.js';
import type { Account, PasswordFields } from '../account-core/index.js';

// onepw server side (protocol.md §1.3, §1.4): authPW is stretched once more with scrypt and a
// per-account authSalt; what is stored is the verifyHash and kB's double wrapping, never authPW.

export interface Verifier {
  verifyHash: string;
  wrapwrapKey: Uint8Array;
}

/** scrypt(authPW, authSalt) then HKDF: runs in a worker, can answer 503/201 under load. */
export async function computeVerifier(scrypt: ScryptPool, authPW: string, authSalt: string): Promise<Verifier> {
  const big = await scrypt.hash(fromHex(authPW), fromHex(authSalt));
  return deriveVerifier(big);
}


/**
 * Which of the account's verifiers this authPW matches. One scrypt serves both: v1 and v2 share
 * the authSalt, and a client sends one authPW (its v1 or its v2 value).
 */
export async function matchPassword(scrypt: ScryptPool, account: Account, authPW: string): Promise<{ version: 1 | 2; wrapKb: string } | null> {
  const v = await computeVerifier(scrypt, authPW, account.authSalt);
  // Compare against both columns every time so the answer takes the same work either way.
  const v1 = constantTimeStringEqual(v.verifyHash, account.verifyHash);
  const v2 = account.verifyHashV2 !== null && constantTimeStringEqual(v.verifyHash, account.verifyHashV2);
  if (v2 && account.wrapWrapKbV2) return { version: 2, wrapKb: toHex(xor(fromHex(account.wrapWrapKbV2), v.wrapwrapKey)) };
  if (v1) return { version: 1, wrapKb: toHex(xor(fromHex(account.wrapWrapKb), v.wrapwrapKey)) };
  return null;
}

/** The password fields a client sends when it sets a password (create, change, reset, set). */
export interface PasswordInput {
  authPW: string;
  authPWVersion2?: string | undefined;
  wrapKb?: string | undefined;
  wrapKbVersion2?: string | undefined;
  clientSalt?: string | undefined;
}

/**
 * Version-2 fields travel together (protocol.md §1.4). `requireWrapKb` is set where the client
 * must keep kB (password change) — elsewhere a v1-only password gets a fresh random kB.
 */
export function checkPasswordInput(input: PasswordInput, options: { requireWrapKb?: boolean } = {}): void {
  const v2 = ['authPWVersion2', 'wrapKbVersion2', 'clientSalt'] as const;
  const present = v2.filter((k) => input[k] !== undefined);
  const missing = (keys: string[], message: string) =>
    appError('INVALID_PARAMETER', { validation: { source: 'payload', keys, rule: 'and', message } }, `Invalid parameter in request body: ${message}`);
  if (present.length && present.length < v2.length) {
    const absent = v2.filter((k) => input[k] === undefined);
    throw missing(absent, `${absent.join(', ')} must be sent with ${present.join(', ')} (version-2 fields go together)`);
  }
  if (present.length && input.wrapKb === undefined) throw missing(['wrapKb'], 'wrapKb is required with the version-2 fields');
  if (present.length && !isV2ClientSalt(input.clientSalt!)) {
    throw missing(['clientSalt'], 'clientSalt must be the quickStretchV2 prefix followed by 32 lowercase hex characters when version-2 fields are sent');
  }
  if (options.requireWrapKb && input.wrapKb === undefined) throw missing(['wrapKb'], 'wrapKb is required to keep the account keys');
}

export interface NewPassword {
  fields: Omit<PasswordFields, 'verifierSetAt'>;
  /** kB's single wrapping under the new password(s), for key fetch tokens. */
  wrapKb: string;
  wrapKbV2: string | null;
}

/** Stretches the new password(s) with a fresh authSalt and wraps kB for storage. */
export async function newPassword(scrypt: ScryptPool, input: PasswordInput): Promise<NewPassword> {
  const authSalt = randomHex(32);
  const hasV2 = input.authPWVersion2 !== undefined;
  const [v1, v2] = await Promise.all([
    computeVerifier(scrypt, input.authPW.toLowerCase(), authSalt),
    hasV2 ? computeVerifier(scrypt, input.authPWVersion2!.toLowerCase(), authSalt) : Promise.resolve(null),
  ]);
  const wrapKb = input.wrapKb ? input.wrapKb.toLowerCase() : randomHex(32);
  const wrapKbV2 = hasV2 ? input.wrapKbVersion2!.toLowerCase() : null;
  return {
    fields: {
      authSalt,
      verifyHash: v1.verifyHash,
      wrapWrapKb: toHex(xor(fromHex(wrapKb), v1.wrapwrapKey)),
      clientSalt: hasV2 ? input.clientSalt! : null,
      verifyHashV2: v2 ? v2.verifyHash : null,
      wrapWrapKbV2: v2 && wrapKbV2 ? toHex(xor(fromHex(wrapKbV2), v2.wrapwrapKey)) : null,
    },
    wrapKb,
    wrapKbV2,
  };
}

