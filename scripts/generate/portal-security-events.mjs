// The security events the server records and what each means, from the one table of names in
// apps/server/src/domains/security-events/names.ts.
import { SECURITY_EVENTS } from '@tessera/server/docs';
import { cell, code, table, HEADER } from '../../apps/portal/scripts/markdown.mjs';

export const name = 'portal-security-events';

export async function outputs() {
  const rows = Object.entries(SECURITY_EVENTS).map(([event, meaning]) => [code(event), cell(meaning)]);
  const content = HEADER('apps/server/src/domains/security-events/names.ts') +
    `${rows.length} event names.\n\n${table(['Name', 'Recorded when'], rows)}\n`;
  return [{ path: 'apps/portal/docs/_generated/security-events.md', content }];
}
