import { Type } from '@sinclair/typebox';
import { appError } from '@tessera/errors';

// The OAuth server's `assertion` field (spec 2 §5: 50 to 10240 characters; POST /authorization,
// /token and /key-data). Elsewhere it carries an identity assertion (a BrowserID certificate
// bundle) that the OAuth server verifies to learn who the person is. Tessera provisions no
// BrowserID certificates (platform/keys/service.ts: browseridDocument is disabled) and runs the auth and
// OAuth servers in one process, so the person is named by what an assertion would stand for: the
// signed-in session token, sent as a Hawk-signed request. The field is accepted by the schema, so
// a client sending one gets a sentence on what to do instead rather than "unknown field", and is
// never honoured: alone it answers 401/104, beside a session token 400/109 (two credentials that
// could name different people are refused, not arbitrated).

/** How Tessera authorizes what an assertion authorizes elsewhere; part of every refusal. */
export const USE_SESSION_TOKEN = 'Tessera issues no identity assertions and accepts none: sign this request with Hawk using the session token of the signed-in person (Authorization: Hawk id="<tokenId>", …, the id and key derived from the session token as for every session route)';

const TOKEN_INSTEAD = 'Tessera issues no identity assertions and accepts none: trade a session token for tokens with POST /v1/oauth/token, grant_type=fxa-credentials, signed with Hawk using the session token (first-party clients registered with canGrant), or use the authorization-code flow';

export const Assertion = Type.Optional(Type.String({
  minLength: 50, maxLength: 10240,
  description: 'An identity assertion (50–10240 characters), as other servers of this protocol accept. Never honoured here: Tessera authorizes this call with the session token (Hawk). Sent without a session token 401/104, with one 400/109.',
}));

/** A route authorized by a Hawk session token: an `assertion` beside it is ambiguous (400/109). */
export function withoutAssertion<B extends object>(body: B): B {
  if ((body as { assertion?: string }).assertion !== undefined) {
    throw appError('INVALID_PARAMETER', {
      validation: { source: 'payload', keys: ['assertion'], message: `send the session token (Hawk) or an assertion, not both; ${USE_SESSION_TOKEN}` },
    });
  }
  return body;
}

/**
 * POST /token, which takes no session token: an `assertion` would have to name the person by
 * itself, and none does here (401/104 on the OAuth-server path). The grant that needs the person
 * named, `fxa-credentials`, gets the same answer without one: there it takes an assertion, here
 * only POST /oauth/token takes it, with the session token.
 */
export function refuseAssertion<B extends object>(body: B): B {
  if ((body as { assertion?: string }).assertion !== undefined) throw appError('INVALID_TOKEN', { detail: 'An assertion cannot authorize this call on Tessera' }, `Invalid assertion: ${TOKEN_INSTEAD}`);
  if ((body as { grant_type?: string }).grant_type === 'fxa-credentials') {
    throw appError('INVALID_TOKEN', { detail: 'The fxa-credentials grant needs a session token' }, `Invalid assertion: ${TOKEN_INSTEAD}`);
  }
  return body;
}
