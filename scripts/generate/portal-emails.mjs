// Every email the server sends: its template name, when it goes out, its subject, and what
// automation headers it carries: the templates every domain manifest declares (its emails.ts).
import { composeDeclarations, DOMAINS, SUPPORTED_LOCALES, translator } from '@tessera/server/docs';
import { cell, code, table, HEADER } from '../../apps/portal/scripts/markdown.mjs';

export const name = 'portal-emails';

// Sample data to show each template's subject and headers as they are sent.
const SAMPLE = {
  link: 'https://accounts.example/verify_email?uid=…&code=…', code: '123456', minutes: 20,
  device: 'Firefox on Linux', time: '2026-11-22 10:00', action: 'password',
};

export async function outputs({ domains = DOMAINS } = {}) {
  const rows = Object.entries(composeDeclarations(domains).emails).map(([name, tpl]) => {
    const content = tpl.content(translator('en', tpl.strings), SAMPLE);
    const headers = Object.keys(tpl.headers(SAMPLE));
    return [code(name), cell(tpl.sentWhen), cell(content.subject.replace(SAMPLE.code, '<code>')), headers.map(code).join(', ') || '—'];
  });
  const content = HEADER('the emails each domain manifest declares (domains/<name>/emails.ts)') +
    `${rows.length} templates; languages: ${SUPPORTED_LOCALES.map(code).join(', ')}. Every message has a plain-text and an HTML part and the header ${code('X-Tessera-Template')}.\n\n` +
    table(['Template', 'Sent when', 'Subject (en)', 'Headers for automation'], rows) + '\n';
  return [{ path: 'apps/portal/docs/_generated/emails.md', content }];
}
