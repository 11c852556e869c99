import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractSections } from '../../src/plugins/search/extract.js';
import { rank, loadIndex, NoIndexError } from '../../src/plugins/search/client/search.js';

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

// The development server has no index: it answers 404 or its single-page fallback HTML. Either is
// "search needs a build" (NO_INDEX), not a network failure; a real network failure stays one.
test('a missing index (404, or HTML from the dev server) is NO_INDEX; a failed fetch is not', async (t) => {
  const realFetch = globalThis.fetch;
  t.after(() => { globalThis.fetch = realFetch; });
  const answer = (status, type, body) => async () => new Response(body, { status, headers: { 'content-type': type } });
  globalThis.fetch = answer(404, 'text/html', 'Not found');
  await assert.rejects(loadIndex('/x/search-index.json'), (e) => e instanceof NoIndexError && e.code === 'NO_INDEX');
  globalThis.fetch = answer(200, 'text/html; charset=utf-8', '<!doctype html><div id="__docusaurus"></div>');
  await assert.rejects(loadIndex('/x/search-index.json'), (e) => e.code === 'NO_INDEX');
  globalThis.fetch = async () => { throw new TypeError('fetch failed'); };
  await assert.rejects(loadIndex('/x/search-index.json'), (e) => e.code === undefined && e.message === 'fetch failed');
  globalThis.fetch = answer(503, 'text/plain', 'busy');
  await assert.rejects(loadIndex('/x/search-index.json'), (e) => e.code === undefined && /HTTP 503/.test(e.message));
  // Not cached after a failure: the built index loads once it is there.
  globalThis.fetch = answer(200, 'application/json', JSON.stringify({ v: 1, docs: [{ u: '/a', t: 'T', h: '', x: 'text' }] }));
  assert.equal((await loadIndex('/x/search-index.json')).length, 1);
});
