// The route table of the portal's "Credentials and session states" page: for every operation of the
// OpenAPI document, the credentials it takes and the least confirmed session it accepts, from the
// routes' `config.auth` (as the document's `x-auth` states it; apps/server/src/http/auth.ts).
import { openApiDocument } from './_openapi-document.mjs';
import { cell, code, table, HEADER } from '../../apps/portal/scripts/markdown.mjs';

export const name = 'portal-route-auth';

/** How each strategy reads in the table. */
const CREDENTIALS = {
  sessionToken: 'session token',
  sessionTokenVerified: 'session token',
  keyFetchToken: 'keyFetchToken',
  accountResetToken: 'accountResetToken (spent)',
  accountResetTokenUnspent: 'accountResetToken',
  passwordForgotToken: 'passwordForgotToken',
  passwordForgotTokenProven: 'passwordForgotToken (proven address)',
  passwordChangeToken: 'passwordChangeToken',
  oauthToken: 'OAuth access token',
  mfa: 'MFA token',
  appleNotification: 'notification signed by Apple (body)',
};

export const SESSION_LABELS = {
  unconfirmed: 'unconfirmed',
  confirmed: 'confirmed',
  aal: "confirmed at the account's AAL",
};

export function credentialsOf(auth) {
  if (!auth.strategies.length) return 'none';
  const names = [...new Set(auth.strategies.map((s) => {
    const label = CREDENTIALS[s];
    if (!label) throw new Error(`portal-route-auth: no label for strategy ${s}; add it to CREDENTIALS`);
    return s === 'mfa' && auth.scope ? `${label} (${code(auth.scope)})` : label;
  }))];
  return names.join(', ') + (auth.optional ? ' (optional)' : '');
}

export async function outputs() {
  const doc = await openApiDocument();
  const rows = [];
  const counts = { none: 0, unconfirmed: 0, confirmed: 0, aal: 0, other: 0 };
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      const auth = op['x-auth'];
      if (!auth) throw new Error(`portal-route-auth: ${method.toUpperCase()} ${path} has no x-auth`);
      const session = auth.session ? SESSION_LABELS[auth.session] : auth.strategies.length ? '— (no session)' : '—';
      counts[auth.session ?? (auth.strategies.length ? 'other' : 'none')]++;
      rows.push([code(`${method.toUpperCase()} ${path}`), cell(credentialsOf(auth)), cell(session), cell(auth.unconfirmed ?? '')]);
    }
  }
  rows.sort((a, b) => a[0].localeCompare(b[0]));
  const content = HEADER("the routes' config.auth (apps/server/src/http/auth.ts)") +
    `${rows.length} operations: ${counts.none} public, ${counts.unconfirmed} accept an unconfirmed session, ` +
    `${counts.aal} need a session confirmed at the account's AAL, ${counts.other} take another credential only.\n\n` +
    table(['Route', 'Credentials', 'Least session state', 'Why an unconfirmed session is enough'], rows) + '\n';
  return [{ path: 'apps/portal/docs/_generated/route-auth.md', content }];
}
