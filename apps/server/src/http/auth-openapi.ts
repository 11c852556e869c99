import { TOKEN_TYPES } from '@tessera/protocol';
import type { AnyStrategy, RouteAuth, StrategyMap } from './auth.js';

// Route auth in OpenAPI: one Bearer and one Hawk scheme per onepw token kind, one Bearer scheme for
// OAuth tokens, one per JWT strategy, and each operation's security requirements.

/** The OpenAPI scheme of a `jwt` strategy: `<strategy>TokenBearer` (the SDK names its argument `<strategy>Token`). */
export const jwtSchemeName = (strategy: string) => `${strategy}TokenBearer`;

export function securitySchemes(strategies: StrategyMap = {}): Record<string, unknown> {
  const schemes: Record<string, unknown> = {};
  for (const [type, { prefix }] of Object.entries(TOKEN_TYPES)) {
    schemes[`${type}Bearer`] = {
      type: 'http', scheme: 'bearer', bearerFormat: `${prefix}<tokenId>`,
      description: `\`Authorization: Bearer ${prefix}<tokenId>\` — the ${type}'s derived id (64 hex), HKDF(${type}, "${type}") bytes 0–32. Refused (401/110) once the token has been used with Hawk.`,
    };
    schemes[`${type}Hawk`] = {
      type: 'http', scheme: 'Hawk',
      description: `Hawk 1 with id = the ${type}'s tokenId and key = its authKey (HKDF bytes 32–64), SHA-256, over the server's public host and port.`,
    };
  }
  schemes.oauthBearer = {
    type: 'http', scheme: 'bearer', bearerFormat: '64 hex or JWT',
    description: 'An OAuth access token issued by this server: `Authorization: Bearer <64 hex>`, or `Bearer <JWT>` for clients registered for JWT access tokens.',
  };
  for (const [name, strategy] of Object.entries(strategies) as [string, AnyStrategy][]) {
    if (strategy.kind !== 'jwt') continue;
    schemes[jwtSchemeName(name)] = { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: strategy.description };
  }
  return schemes;
}

export function securityRequirements(auth: RouteAuth, strategies: StrategyMap): Record<string, string[]>[] {
  const reqs: Record<string, string[]>[] = [];
  for (const name of auth.strategies) {
    const kind = (strategies[name] as AnyStrategy).kind;
    // OpenAPI 3.1 §4.8.30: for non-OAuth schemes the array lists the roles the operation needs.
    // A signed request proves itself in its documented body: no header scheme to name.
    if (kind === 'signed') continue;
    if (kind === 'jwt') reqs.push({ [jwtSchemeName(name)]: auth.scope !== undefined ? [auth.scope] : [] });
    else if (kind === 'oauth') reqs.push({ oauthBearer: [] });
    else reqs.push({ [`${kind}Bearer`]: [] }, { [`${kind}Hawk`]: [] });
  }
  if (auth.optional) reqs.push({});
  const seen = new Set<string>();
  return reqs.filter((r) => {
    const key = JSON.stringify(r);
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

