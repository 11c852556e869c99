import { describe, expect, it } from 'vitest';
import { checkPassword, PASSWORD_MIN_LENGTH, PASSWORD_REASONS } from './index.js';

const cases: [password: string, email: string | undefined, problem: 'too-short' | 'is-email' | undefined][] = [
  ['', undefined, 'too-short'],
  ['abc', 'a@example.com', 'too-short'],
  ['1234567', undefined, 'too-short'],
  ['12345678', undefined, undefined],
  ['😀😀😀😀', undefined, 'too-short'], // 8 UTF-16 units, 4 characters
  ['😀😀😀😀😀😀😀😀', undefined, undefined],
  ['me@example.com', 'me@example.com', 'is-email'],
  [' ME@Example.com ', 'me@example.com', 'is-email'],
  ['me@example.com!', 'me@example.com', undefined],
  ['me@example.com', undefined, undefined],
  ['correct horse battery', 'me@example.com', undefined],
];

describe('the password policy', () => {
  it.each(cases)('checkPassword(%j, %j) → %s', (password, email, problem) => {
    const refused = checkPassword(password, email === undefined ? {} : { email });
    expect(refused?.problem).toBe(problem);
    if (problem) expect(refused?.reason).toBe(PASSWORD_REASONS[problem]);
  });

  it('names the minimum length in its reason', () => {
    expect(PASSWORD_MIN_LENGTH).toBe(8);
    expect(checkPassword('short')?.reason).toBe('The password must have at least 8 characters.');
  });
});
