// The /api page. Plain React over the compact data the openapi plugin prepared at build time: no
// generic OpenAPI renderer in the browser, one anchor (#operationId) per operation, and every
// operation an <h3> so the search index finds it.
import React, { useState } from 'react';
import Layout from '@theme/Layout';
import Heading from '@theme/Heading';
import Link from '@docusaurus/Link';
import styles from './styles.module.css';

/** Renders `code` spans; the descriptions are short prose, not full markdown. */
function Inline({ text }) {
  if (!text) return null;
  const parts = text.split(/(`[^`]+`)/g);
  return parts.map((part, i) =>
    part.startsWith('`') && part.endsWith('`') && part.length > 1 ? <code key={i}>{part.slice(1, -1)}</code> : part,
  );
}

/** A path with line-break opportunities after each slash, so long paths wrap between segments. */
function breakable(path) {
  const parts = path.split('/');
  return parts.map((part, i) => (
    <React.Fragment key={i}>
      {part}
      {i < parts.length - 1 ? <>/<wbr /></> : null}
    </React.Fragment>
  ));
}

function SchemaTree({ node, name, required }) {
  const props = node.p || node.i?.p;
  return (
    <li>
      {name !== undefined && <code className={styles.prop}>{name}</code>}{' '}
      <span className={styles.type}>{node.t}</span>
      {required ? <span className={styles.required}> required</span> : null}
      {node.c ? <span className={styles.constraints}> · {node.c.join(' · ')}</span> : null}
      {node.d ? <span className={styles.desc}> — <Inline text={node.d} /></span> : null}
      {props ? (
        <ul className={styles.tree}>
          {props.map((p) => (
            <SchemaTree key={p.n} node={p} name={p.n} required={p.r} />
          ))}
        </ul>
      ) : null}
      {node.a ? (
        <ul className={styles.tree}>
          {node.a.map((alt, i) => (
            <SchemaTree key={i} node={alt} name={`variant ${i + 1}`} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

function Schema({ node }) {
  if (!node) return null;
  const props = node.p || node.i?.p;
  if (!props && !node.a) {
    return (
      <p className={styles.schemaLine}>
        <span className={styles.type}>{node.t}</span>
        {node.c ? <span className={styles.constraints}> · {node.c.join(' · ')}</span> : null}
        {node.d ? <> — <Inline text={node.d} /></> : null}
      </p>
    );
  }
  return (
    <ul className={styles.tree}>
      <SchemaTree node={node} />
    </ul>
  );
}

/** A plain button: its click is handled by the page (`copySample`), which also works on server HTML. */
function CopyButton() {
  return (
    <button type="button" data-copy-sample className={`button button--sm button--secondary ${styles.copy}`}>
      Copy as curl
    </button>
  );
}

/** Click handler of the whole reference: copies the curl sample beside a "Copy as curl" button. */
function copySample(event) {
  const button = event.target.closest?.('button[data-copy-sample]');
  if (!button) return;
  const text = button.parentElement.querySelector('pre code')?.textContent ?? '';
  const show = (label) => {
    button.textContent = label;
    setTimeout(() => (button.textContent = 'Copy as curl'), 2000);
  };
  if (navigator.clipboard) navigator.clipboard.writeText(text).then(() => show('Copied'), () => show('Copy failed'));
  else show('Copy failed');
}

/**
 * The reference is thousands of elements with nothing to update after load, and hydrating them was
 * most of the page's main-thread time on a phone (Lighthouse). When the browser hydrates the
 * server-rendered page, this keeps the server's HTML as it is (one element for React, not
 * thousands); after a client-side navigation there is no server HTML and the children are rendered.
 */
function StaticAfterLoad({ id, className, children }) {
  const [html] = useState(() => (typeof document === 'undefined' ? null : document.getElementById(id)?.innerHTML ?? null));
  if (html !== null) return <div id={id} className={className} onClick={copySample} dangerouslySetInnerHTML={{ __html: html }} />;
  return (
    <div id={id} className={className} onClick={copySample}>
      {children}
    </div>
  );
}

function Operation({ op, schemes }) {
  const schemeNames = new Set(schemes.map((s) => s.n));
  return (
    <section className={styles.operation} aria-labelledby={op.id}>
      <Heading as="h3" id={op.id} className={styles.opHeading}>
        <span className={`${styles.method} ${styles[`m${op.m}`] || ''}`}>{op.m}</span>{' '}
        <code className={styles.path}>{op.path}</code> <span className={styles.summary}>{op.s}</span>
      </Heading>
      {op.dep ? <p className={styles.deprecated}>Deprecated.</p> : null}
      {op.d ? <p><Inline text={op.d} /></p> : null}
      <p className={styles.auth}>
        <strong>Authentication:</strong>{' '}
        {op.sec.length === 0
          ? 'none'
          : op.sec.map((req, i) => (
              <span key={i}>
                {i > 0 ? ' or ' : ''}
                {req.map((n) => (schemeNames.has(n) ? <a key={n} href={`#scheme-${n}`}><code>{n}</code></a> : <code key={n}>{n}</code>))}
              </span>
            ))}
      </p>
      {op.params.length ? (
        <>
          <p className={styles.label}>Parameters</p>
          <ul className={styles.tree}>
            {op.params.map((p) => (
              <SchemaTree key={`${p.in}-${p.n}`} node={{ ...p, t: `${p.in} · ${p.t}` }} name={p.n} required={p.r} />
            ))}
          </ul>
        </>
      ) : null}
      {op.body ? (
        <>
          <p className={styles.label}>
            Request body <span className={styles.type}>{op.body.ct}</span>
            {op.body.r ? <span className={styles.required}> required</span> : null}
          </p>
          <Schema node={op.body.schema} />
        </>
      ) : null}
      <p className={styles.label}>Responses</p>
      <ul className={styles.responses}>
        {op.res.map((r) => (
          <li key={r.st} className={Number(r.st) >= 400 ? styles.error : undefined}>
            <strong>{r.st}</strong> <Inline text={r.d} />
            {r.schema ? (
              <details>
                <summary>Schema</summary>
                <Schema node={r.schema} />
              </details>
            ) : null}
          </li>
        ))}
      </ul>
      <details className={styles.sample}>
        <summary>Request sample</summary>
        <pre>
          <code>{op.curl}</code>
        </pre>
        <CopyButton />
      </details>
    </section>
  );
}

export default function ApiReference({ api }) {
  return (
    <Layout title="API reference" description={`${api.title} ${api.version}: every operation, its authentication, parameters and responses.`}>
      <StaticAfterLoad id="api-reference" className={`container ${styles.page}`}>
        <nav className={styles.nav} aria-label="API operations">
          {api.tags.map((tag) => (
            <div key={tag.name}>
              <a className={styles.navTag} href={`#tag-${tag.name}`}>{tag.name}</a>
              <ul>
                {tag.ops.map((op) => (
                  <li key={op.id}>
                    <a href={`#${op.id}`}>
                      <span className={styles.navMethod}>{op.m}</span> <span>{breakable(op.path)}</span>
                    </a>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </nav>
        <main className={`${styles.main} tessera-prose`}>
          <Heading as="h1">API reference</Heading>
          <p>
            {api.title} <code>{api.version}</code>. <Inline text={api.description} /> Rendered at build time from the
            server's committed <code>openapi.json</code>. Set <code>TESSERA</code> to the server's address (for a local
            server, the URL <code>npm start</code> prints) to run the samples.
          </p>
          <Heading as="h2" id="authentication">Authentication</Heading>
          <ul>
            {api.schemes.map((s) => (
              <li key={s.n} id={`scheme-${s.n}`}>
                <code>{s.n}</code> ({s.t}) — <Inline text={s.d} />
              </li>
            ))}
          </ul>
          <p>
            Errors share one body shape (<code>code</code>, <code>errno</code>, <code>error</code>, <code>message</code>,
            plus per-errno fields); the <Link to="/reference/errors">error reference</Link> lists every errno.
          </p>
          {api.tags.map((tag) => (
            <section key={tag.name}>
              <Heading as="h2" id={`tag-${tag.name}`}>{tag.name}</Heading>
              {tag.d ? <p><Inline text={tag.d} /></p> : null}
              {tag.ops.map((op) => (
                <Operation key={op.id} op={op} schemes={api.schemes} />
              ))}
            </section>
          ))}
        </main>
      </StaticAfterLoad>
    </Layout>
  );
}
