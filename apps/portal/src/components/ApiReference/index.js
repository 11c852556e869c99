// The API reference's overview (/api): authentication schemes and every operation, grouped by tag,
// each linking to its tag's page (/api/<tag>#operationId). Before the reference was split, every
// operation lived on this page at /api#operationId (and each tag at /api#tag-<Name>); such links, in
// bookmarks and other sites, are sent on to the operation's page.
import React, { useEffect } from 'react';
import Layout from '@theme/Layout';
import Heading from '@theme/Heading';
import Link from '@docusaurus/Link';
import useBaseUrl from '@docusaurus/useBaseUrl';
import { useHistory, useLocation } from '@docusaurus/router';
import { ApiNav, Inline, Method, Schema, StaticAfterLoad, opHref } from './parts.js';
import styles from './styles.module.css';

/** Old anchor (without `#`) → its page under /api/, for the operations and tags of the one-page reference. */
function movedAnchors(api) {
  const moved = {};
  for (const tag of api.tags) {
    moved[`tag-${tag.name}`] = tag.slug;
    for (const op of tag.ops) moved[op.id] = `${tag.slug}#${op.id}`;
  }
  return moved;
}

/**
 * Runs while the server's HTML is parsed, before any script of the site has loaded: a reader who
 * followed an old link does not see the overview first. The anchors are JSON, so `</script` cannot
 * occur in it unescaped (`<` is written as \u003c).
 */
function redirectScript(moved, base) {
  const json = JSON.stringify(moved).replace(/</g, '\\u003c');
  return `(function(){var m=${json};var h=location.hash.slice(1);try{h=decodeURIComponent(h)}catch(e){}` +
    `if(Object.prototype.hasOwnProperty.call(m,h))location.replace(${JSON.stringify(base)}+m[h])})();`;
}

export default function ApiReference({ api }) {
  const moved = movedAnchors(api);
  const base = useBaseUrl('/api/');
  const history = useHistory();
  const { hash } = useLocation();
  // The same after a client-side navigation to /api#operationId (the inline script ran only on load).
  useEffect(() => {
    let id = hash.slice(1);
    try {
      id = decodeURIComponent(id);
    } catch {
      // a malformed escape is not one of ours
    }
    if (Object.hasOwn(moved, id)) history.replace(`${base}${moved[id]}`);
  }, [hash]); // `moved`, `base` and `history` are fixed for the page
  return (
    <Layout title="API reference" description={`${api.title} ${api.version}: every operation, its authentication, parameters and responses.`}>
      <script dangerouslySetInnerHTML={{ __html: redirectScript(moved, base) }} />
      <StaticAfterLoad id="api-reference" className={`container ${styles.page}`}>
        <ApiNav api={api} current={null} />
        <main className={`${styles.main} tessera-prose`}>
          <Heading as="h1">API reference</Heading>
          <p>
            {api.title} <code>{api.version}</code>. <Inline text={api.description} /> Rendered at build time from the
            server's committed <code>openapi.json</code>. Set <code>TESSERA</code> to the server's address (for a local
            server, the URL <code>npm start</code> prints) to run the samples.
          </p>
          <Heading as="h2" id="authentication">Authentication</Heading>
          {api.schemes.map((s) => (
            <React.Fragment key={s.n}>
              <Heading as="h3" id={`scheme-${s.n}`} className={styles.scheme}>
                <code>{s.n}</code> <span className={styles.summary}>{s.t}</span>
              </Heading>
              <p><Inline text={s.d} /></p>
            </React.Fragment>
          ))}
          <Heading as="h2" id="errors">Errors</Heading>
          <p>
            Errors share one body shape (<code>code</code>, <code>errno</code>, <code>error</code>, <code>message</code>,
            plus per-errno fields); each operation lists the errnos it can answer, and the{' '}
            <Link to="/reference/errors">error reference</Link> describes every errno.
          </p>
          {api.errorSchemas.map((s) => (
            <React.Fragment key={s.n}>
              <Heading as="h3" id={`schema-${s.n}`}><code>{s.n}</code></Heading>
              <Schema node={s.schema} />
            </React.Fragment>
          ))}
          <Heading as="h2" id="operations">Operations</Heading>
          <p>One page per group; each operation there has its parameters, responses, errors and a curl sample.</p>
          {api.tags.map((tag) => (
            <section key={tag.slug} aria-labelledby={`group-${tag.slug}`}>
              <Heading as="h3" id={`group-${tag.slug}`}>
                <Link to={`/api/${tag.slug}`}>{tag.name}</Link>
              </Heading>
              {tag.d ? <p><Inline text={tag.d} /></p> : null}
              <ul className={styles.opList}>
                {tag.ops.map((op) => (
                  <li key={op.id}>
                    <Link to={opHref(tag.slug, op.id)}>
                      <Method m={op.m} /> <code className={styles.path}>{op.path}</code>
                    </Link>{' '}
                    <span className={styles.summary}>{op.s}</span>
                  </li>
                ))}
              </ul>
            </section>
          ))}
        </main>
      </StaticAfterLoad>
    </Layout>
  );
}
