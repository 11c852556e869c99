import { Type } from '@sinclair/typebox';

// Schema pieces and sentences the OAuth routes share (authorization, token and key-data doors).

export const hex = (n: number, description: string) => Type.String({ pattern: `^[0-9a-fA-F]{${n}}$`, description });
export const scope = Type.String({ maxLength: 256, pattern: '^[a-zA-Z0-9 _/.:#-]*$', description: 'Space-separated scopes, each one the client is allowed (`openid` always is).' });
export const ppidSeed = (description: string) => Type.Integer({ minimum: 0, maximum: 1024, description });

/** The OAuth-server path's sentence on errnos, added to a description written with auth errnos. */
export const OAUTH_ERRNOS_NOTE = 'This path answers from the OAuth server\'s error catalogue (the portal\'s error reference, OAuth section), not with the auth errnos quoted above: 101 unknown client, 102 incorrect secret, 103 redirect_uri mismatch, 104 invalid session (401), 105 unknown code, 106 another client\'s code, 107 expired code, 108 invalid or unknown token, 109 invalid parameter, 110 response_type, 111 bad signature (401), 112 unconfirmed (403), 113 content type (415), 114 scopes, 117 PKCE mismatch, 118 PKCE missing, 120 acr_values, 121 grant_type, 122 invalid_target; a session below the account\'s AAL keeps the auth server\'s 400/222, which has no twin.';

