import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractSections } from '../../src/plugins/search/extract.js';
import { rank } from '../../src/plugins/search/client/search.js';

const html = `<html><head><title>Tokens | Tessera Ecosystem Platform</title></head><body><nav>menu</nav>
<article><div class="theme-doc-markdown markdown"><header><h1>Tokens</h1></header><p>Every token is 32 bytes &amp; random.</p>
<h2 class="anchor" id="presenting-a-token">Presenting a token<a class="hash-link" href="#presenting-a-token">\u200b</a></h2><p>Bearer or Hawk.</p>
<h3 id="hawk">Hawk</h3><p>Nonce and timestamp.</p></div><footer>x</footer></article></body></html>`;

test('pages are cut into sections at h2 and h3 anchors', () => {
  const s = extractSections(html, '/ecosystem-platform/reference/tokens');
  assert.deepEqual(s.map((x) => [x.u, x.h]), [
    ['/ecosystem-platform/reference/tokens', ''],
    ['/ecosystem-platform/reference/tokens#presenting-a-token', 'Presenting a token'],
    ['/ecosystem-platform/reference/tokens#hawk', 'Hawk'],
  ]);
  assert.equal(s[0].t, 'Tokens');
  assert.match(s[0].x, /32 bytes & random/);
});

test('ranking requires every word and prefers headings', () => {
  const docs = extractSections(html, '/t').map((d) => ({ ...d, lt: d.t.toLowerCase(), lh: d.h.toLowerCase(), lx: d.x.toLowerCase() }));
  const hits = rank(docs, 'hawk nonce');
  assert.equal(hits.length, 1);
  assert.equal(hits[0].url, '/t#hawk');
  assert.equal(rank(docs, 'hawk')[0].url, '/t#hawk');
  assert.deepEqual(rank(docs, 'zebra'), []);
});
