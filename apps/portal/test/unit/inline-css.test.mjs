import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inlineStylesheets } from '../../src/plugins/inline-css/index.js';

test('the site stylesheet link becomes a <style> element; other links stay', () => {
  const html = '<head><link rel="icon" href="/b/img/logo.svg"><link rel="stylesheet" href="/b/assets/css/styles.1a2b.css"><link rel="stylesheet" href="https://elsewhere/x.css"></head>';
  const out = inlineStylesheets(html, '/b/', (file) => (file === 'assets/css/styles.1a2b.css' ? 'a{color:red}' : assert.fail(file)));
  assert.equal(out, '<head><link rel="icon" href="/b/img/logo.svg"><style>a{color:red}</style><link rel="stylesheet" href="https://elsewhere/x.css"></head>');
});

test('a stylesheet cannot close the <style> element early', () => {
  const out = inlineStylesheets('<link rel="stylesheet" href="/assets/css/s.css">', '/', () => 'a::after{content:"</style><script>"}');
  assert.equal(out.match(/<\/style>/g).length, 1);
});
