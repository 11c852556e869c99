// The security events the server records and what each means: the composition of what every
// domain's manifest declares (`securityEvents`).
import { composeDeclarations, DOMAINS } from '@tessera/server/docs';
import { cell, code, table, HEADER } from '../../apps/portal/scripts/markdown.mjs';

export const name = 'portal-security-events';

export async function outputs({ domains = DOMAINS } = {}) {
  const rows = Object.entries(composeDeclarations(domains).securityEvents).map(([event, meaning]) => [code(event), cell(meaning)]);
  const content = HEADER('the security events each domain manifest declares') +
    `${rows.length} event names.\n\n${table(['Name', 'Recorded when'], rows)}\n`;
  return [{ path: 'apps/portal/docs/_generated/security-events.md', content }];
}
