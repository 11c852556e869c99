// The pieces shared by the API reference's overview (index.js) and its per-tag pages (TagPage.js).
// Plain React over the compact data the openapi plugin prepared at build time: no generic OpenAPI
// renderer in the browser.
import React, { useState } from 'react';
import Link from '@docusaurus/Link';
import Heading from '@theme/Heading';
import styles from './styles.module.css';

/** Renders `code` spans; the descriptions are short prose, not full markdown. */
export function Inline({ text }) {
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

/** Where an operation is documented: its tag's page, at its operationId. */
export const opHref = (slug, id) => `/api/${slug}#${id}`;

export function Method({ m }) {
  return <span className={`${styles.method} ${styles[`m${m}`] || ''}`}>{m}</span>;
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

export function Schema({ node }) {
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

/** Click handler of a whole page: copies the curl sample beside a "Copy as curl" button. */
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
 * A page of the reference is hundreds of elements with nothing to update after load, and hydrating
 * them was most of its main-thread time on a phone (Lighthouse). When the browser hydrates the
 * server-rendered page, this keeps the server's HTML as it is (one element for React, not all of
 * them); after a client-side navigation there is no server HTML with this page's `id` and the
 * children are rendered. Each page has its own `id`: on a navigation from one tag's page to another
 * the old page is still in the document while the new one renders.
 */
export function StaticAfterLoad({ id, className, children }) {
  const [html] = useState(() => (typeof document === 'undefined' ? null : document.getElementById(id)?.innerHTML ?? null));
  if (html !== null) return <div id={id} className={className} onClick={copySample} dangerouslySetInnerHTML={{ __html: html }} />;
  return (
    <div id={id} className={className} onClick={copySample}>
      {children}
    </div>
  );
}

/** The side navigation: every tag, and the operations of the current one. */
export function ApiNav({ api, current }) {
  return (
    <nav className={styles.nav} aria-label="API operations">
      <div>
        <Link className={styles.navTag} to="/api" aria-current={current === null ? 'page' : undefined}>Overview</Link>
      </div>
      {api.tags.map((tag) => (
        <div key={tag.slug}>
          <Link className={styles.navTag} to={`/api/${tag.slug}`} aria-current={tag.slug === current ? 'page' : undefined}>
            {tag.name}
          </Link>
          {tag.slug === current ? (
            <ul>
              {tag.ops.map((op) => (
                <li key={op.id}>
                  <a href={`#${op.id}`}>
                    <span className={styles.navMethod}>{op.m}</span> <span>{breakable(op.path)}</span>
                  </a>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ))}
    </nav>
  );
}

export function Operation({ op, schemes }) {
  const schemeNames = new Set(schemes);
  return (
    <section className={styles.operation} aria-labelledby={op.id}>
      <Heading as="h2" id={op.id} className={styles.opHeading}>
        <Method m={op.m} /> <code className={styles.path}>{op.path}</code> <span className={styles.summary}>{op.s}</span>
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
                {req.map((n) => (schemeNames.has(n) ? <Link key={n} to={`/api#scheme-${n}`}><code>{n}</code></Link> : <code key={n}>{n}</code>))}
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
            {r.ref ? (
              <>
                {' '}· body: <Link to={`/api#schema-${r.ref}`}><code>{r.ref}</code></Link>
              </>
            ) : null}
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
        <button type="button" data-copy-sample className={`button button--sm button--secondary ${styles.copy}`}>
          Copy as curl
        </button>
      </details>
    </section>
  );
}
