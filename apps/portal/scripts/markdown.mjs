// Helpers for the generated partials under apps/portal/docs/_generated/. Docusaurus parses them as
// MDX, so text must not contain raw `{`, `}` or `<`, and table cells must not contain `|`.

/** Escapes prose for an MDX table cell; `code spans` are kept (MDX does not parse inside them). */
export function cell(text) {
  if (text === undefined || text === null || text === '') return '';
  return String(text)
    .split(/(`[^`]*`)/g)
    .map((part) =>
      part.startsWith('`') && part.endsWith('`') && part.length > 1
        ? part.replace(/\|/g, '\\|')
        : part.replace(/\\/g, '\\\\').replace(/([{}<>|*_[\]])/g, '\\$1'),
    )
    .join('')
    .replace(/\r?\n/g, ' ');
}

/** `code` with backticks inside handled. */
export function code(text) {
  const s = String(text);
  const fence = s.includes('`') ? '``' : '`';
  return `${fence}${fence.length > 1 ? ' ' : ''}${s.replace(/\|/g, '\\|')}${fence.length > 1 ? ' ' : ''}${fence}`;
}

export function table(headers, rows) {
  return [
    `| ${headers.join(' | ')} |`,
    `| ${headers.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

/** An MDX comment naming the source; `*\/` inside the source text (a glob such as `src/**\/x.ts`) would end it early. */
export const HEADER = (source) =>
  `{/* Generated from ${String(source).replace(/\*\//g, '*\\/')} by \`npm run generate\`. Do not edit by hand. */}\n\n`;
