import { randomInt } from 'node:crypto';

/** `length` decimal digits from the CSPRNG, each uniform (no modulo bias): emailed codes. */
export function randomDigits(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += String(randomInt(10));
  return out;
}
