import { expect } from 'vitest';
import { isTesseraError, type TesseraApiError } from '@tessera/client';

/** Awaits a rejection and checks it is the named catalogue error (and status). */
export async function expectError(promise: Promise<unknown>, name: string, status?: number): Promise<TesseraApiError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  if (err === null) throw new Error(`expected ${name}, got success`);
  if (!isTesseraError(err)) throw err;
  expect(err.errorName, err.message).toBe(name);
  if (status) expect(err.code).toBe(status);
  return err;
}
