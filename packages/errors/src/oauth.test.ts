import { describe, expect, it } from 'vitest';
import { appError, catalogueProblems, OAUTH_ERRORS, OAUTH_TWINS, oauthErrorName, oauthTwin, toOAuthError, AUTH_ERRORS } from './index.js';

describe('OAuth error catalogue', () => {
  it('has no broken entries and never reuses a number', () => {
    expect(catalogueProblems(OAUTH_ERRORS)).toEqual([]);
  });

  it('pins every errno to its name (numbers are frozen: change this table only to add)', () => {
    const pinned = Object.fromEntries(Object.entries(OAUTH_ERRORS).map(([n, d]) => [n, `${d.status}/${d.errno}`]));
    expect(pinned).toMatchInlineSnapshot(`
      {
        "EXPIRED_CODE": "400/107",
        "EXPIRED_TOKEN": "400/115",
        "FORBIDDEN": "403/112",
        "INCORRECT_CODE": "400/106",
        "INCORRECT_CODE_CHALLENGE": "400/117",
        "INCORRECT_REDIRECT": "400/103",
        "INCORRECT_SECRET": "400/102",
        "INTERNAL_ERROR": "500/999",
        "INVALID_ASSERTION": "401/104",
        "INVALID_CONTENT_TYPE": "415/113",
        "INVALID_GRANT_TYPE": "400/121",
        "INVALID_PARAMETER": "400/109",
        "INVALID_RESPONSE_TYPE": "400/110",
        "INVALID_SCOPES": "400/114",
        "INVALID_TARGET": "400/122",
        "INVALID_TOKEN": "400/108",
        "MISMATCH_ACR_VALUES": "400/120",
        "MISSING_PKCE_PARAMETERS": "400/118",
        "NOT_PUBLIC_CLIENT": "400/116",
        "STALE_AUTHENTICATION": "400/119",
        "UNAUTHORIZED": "401/111",
        "UNKNOWN_CLIENT": "400/101",
        "UNKNOWN_CODE": "400/105",
      }
    `);
  });

  it('maps auth errors to their OAuth twins, by context where one auth error has two', () => {
    expect(oauthTwin('UNKNOWN_CLIENT_ID')).toBe('UNKNOWN_CLIENT');
    expect(oauthTwin('INVALID_TOKEN')).toBe('INVALID_TOKEN');
    expect(oauthTwin('INVALID_TOKEN', { session: true })).toBe('INVALID_ASSERTION');
    expect(oauthTwin('INVALID_PARAMETER', { validationKeys: ['grant_type'] })).toBe('INVALID_GRANT_TYPE');
    expect(oauthTwin('THROTTLED')).toBeNull();
    for (const [auth, oauth] of Object.entries(OAUTH_TWINS)) {
      expect(AUTH_ERRORS).toHaveProperty(auth);
      expect(OAUTH_ERRORS).toHaveProperty(oauth);
    }
  });

  it('renders a twin with the extras it documents and the refined message', () => {
    const e = toOAuthError(appError('UNKNOWN_CLIENT_ID', { clientId: 'abcd' }));
    expect(e.toBody('i')).toEqual({ code: 400, errno: 101, error: 'Bad Request', message: OAUTH_ERRORS.UNKNOWN_CLIENT.message, info: 'i', clientId: 'abcd' });
    const v = toOAuthError(appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['scope'] } }, 'Invalid parameter in request body: scope is too long'));
    expect(v.toBody('i')).toMatchObject({ errno: 109, message: 'Invalid parameter in request body: scope is too long', validation: { keys: ['scope'] } });
    const tooLarge = appError('MALFORMED_REQUEST', {}, 'Malformed request: the header section is too large', 431);
    expect(toOAuthError(tooLarge)).toBe(tooLarge);
    expect(toOAuthError(appError('MALFORMED_REQUEST', {}, 'Malformed request: a body cut short')).toBody('i')).toMatchObject({ code: 400, errno: 109 });
    const throttled = appError('THROTTLED', { retryAfter: 3 });
    expect(toOAuthError(throttled)).toBe(throttled);
    expect(toOAuthError(appError('UNEXPECTED_ERROR', { requestId: 'r1' }), {}).toBody('i')).toMatchObject({ code: 500, errno: 999, requestId: 'r1' });
  });

  it('maps a wire errno back to its name', () => {
    expect(oauthErrorName(101)).toBe('UNKNOWN_CLIENT');
    expect(oauthErrorName(4242)).toBeUndefined();
  });
});
