// Cuts a built page into searchable sections. Works on Docusaurus' own markup: the doc body is the
// `.theme-doc-markdown` block (or <main> for custom pages such as /api), headings carry their anchor
// id. No HTML library: the markup is generated and regular.

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'", '#x27': "'" };

export function decode(text) {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

export function toText(html) {
  return decode(
    html
      .replace(/<(script|style|svg|button|nav)\b[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<a[^>]*class="hash-link"[\s\S]*?<\/a>/gi, '')
      // Inline elements join their text to the words around them; block elements separate words.
      .replace(/<\/?(?:a|code|strong|em|b|i|span|kbd|wbr|sub|sup)\b[^>]*>/gi, '')
      .replace(/<[^>]+>/g, ' '),
  )
    .replace(/[\u200b]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function body(html) {
  const markdown = /<div class="theme-doc-markdown markdown">([\s\S]*?)<\/div>\s*(?:<\/article>|<footer)/i.exec(html);
  if (markdown) return markdown[1];
  const main = /<main\b[^>]*>([\s\S]*)<\/main>/i.exec(html);
  return main ? main[1] : '';
}

const MAX_TEXT = 1200;

/** [{ u: url (with #anchor), t: page title, h: section heading ('' for the page top), x: text }] */
export function extractSections(html, routePath) {
  const title = toText(/<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? '').replace(/ \| Tessera Ecosystem Platform$/, '');
  const content = body(html);
  if (!content) return [];
  const sections = [];
  const re = /<h([1-3])\b([^>]*)>([\s\S]*?)<\/h\1>/gi;
  let last = { u: routePath, h: '', start: 0 };
  let match;
  const push = (end) => {
    const text = toText(content.slice(last.start, end)).slice(0, MAX_TEXT);
    if (text || last.h) sections.push({ u: last.u, t: title, h: last.h, x: text });
  };
  while ((match = re.exec(content))) {
    const id = /\bid="([^"]+)"/.exec(match[2]);
    if (match[1] === '1' || !id) continue;
    push(match.index);
    last = { u: `${routePath}#${id[1]}`, h: toText(match[3]), start: re.lastIndex };
  }
  push(content.length);
  return sections;
}
