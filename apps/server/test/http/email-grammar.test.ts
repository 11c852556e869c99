import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EMAIL_PATTERN, MAX_LENGTH, emailAddressProblem } from '../../src/email-address.js';

// Issue 22: the pattern the OpenAPI document shows and the server's check must not drift apart.
// An address the pattern (with maxLength) refuses is refused by the server with a named rule, not
// the catch-all; one the server accepts always matches the pattern.
const PATTERN = new RegExp(EMAIL_PATTERN, 'u');
const documentAccepts = (email: string) => [...email].length <= MAX_LENGTH && PATTERN.test(email);

// Strings near the grammar: pieces that matter to it (dots, @, hyphens, digits, 0x, Unicode that
// IDNA maps, unsafe characters, long runs) rather than uniform noise, which never gets past the first rule.
const piece = fc.oneof(
  fc.constantFrom('a', 'Z', '0', '9', '.', '@', '-', '_', '+', '"', ' ', '0x', '0X', 'f', 'xn--', 'xn--zz', 'ü', '例', '\uff10', '\uff0e', '\u0130', '\u200b', '\u00ad', '😀', '(', ',', '<'),
  fc.stringMatching(/^[a-z0-9]{1,70}$/),
);
const nearAddress = fc.tuple(fc.array(piece, { maxLength: 8 }), fc.array(piece, { maxLength: 8 }), fc.array(piece, { maxLength: 4 }))
  .map(([local, domain, tld]) => `${local.join('')}@${domain.join('')}.${tld.join('')}`);

describe('the address pattern and the server\'s check agree', () => {
  it('a refused address names its rule; an accepted one matches the pattern', () => {
    fc.assert(fc.property(fc.oneof(nearAddress, fc.string({ maxLength: 300 })), (email) => {
      const problem = emailAddressProblem(email);
      if (problem === null) expect(documentAccepts(email), email).toBe(true);
      else expect(problem, email).not.toBe('it does not match the address grammar');
      // What the pattern refuses, the server refuses too.
      if (!documentAccepts(email)) expect(problem, email).not.toBeNull();
    }), { numRuns: 20_000, seed: 22 });
  });

  it('names each rule', () => {
    expect(emailAddressProblem('0@0.0')).toMatch(/last label of the domain must not be a number/);
    expect(emailAddressProblem(`${'a'.repeat(65)}@example.com`)).toMatch(/local part \(before the @\) is longer than 64 characters/);
    expect(emailAddressProblem('a@xn--zz.example')).toMatch(/IDNA/);
    expect(emailAddressProblem('a@b@example.com')).toMatch(/more than one @/);
    expect(emailAddressProblem('a@example.com')).toBeNull();
  });
});
