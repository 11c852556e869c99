import { createClientSalt, stretchV1, stretchV2, unwrapKb, type StretchedCredentials } from './stretch.js';

/** What a request that sets a password sends: both stretches' verifiers and wrappings of one kB. */
export interface PasswordFields {
  authPW: string;
  wrapKb: string;
  authPWVersion2: string;
  wrapKbVersion2: string;
  clientSalt: string;
}

/**
 * The version-2 fields for a new password guarding `kB` (sign-up, change, reset, first password):
 * a fresh clientSalt, the v1 and v2 stretches, and kB wrapped under each, so either verifier
 * unlocks the same kB. The stretches are returned too (the caller keeps v2's unwrapBKey).
 */
export async function passwordFields(email: string, password: string, kB: string): Promise<{ v1: StretchedCredentials; v2: StretchedCredentials; fields: PasswordFields }> {
  const clientSalt = createClientSalt();
  const [v1, v2] = await Promise.all([stretchV1(email, password), stretchV2(clientSalt, password)]);
  return {
    v1, v2,
    fields: {
      authPW: v1.authPW,
      wrapKb: unwrapKb(kB, v1.unwrapBKey),
      authPWVersion2: v2.authPW,
      wrapKbVersion2: unwrapKb(kB, v2.unwrapBKey),
      clientSalt,
    },
  };
}
