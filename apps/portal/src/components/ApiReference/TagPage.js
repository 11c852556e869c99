// One page of the API reference: the operations of one tag (/api/<tag>), each an <h2> whose id is
// its operationId, so `/api/<tag>#accountCreate` links to it and the search index finds it.
import React from 'react';
import Layout from '@theme/Layout';
import Heading from '@theme/Heading';
import Link from '@docusaurus/Link';
import { ApiNav, Inline, Operation, StaticAfterLoad } from './parts.js';
import styles from './styles.module.css';

export default function ApiTagPage({ api, page }) {
  const { tag, schemes } = page;
  return (
    <Layout title={`${tag.name} · API reference`} description={`${api.title} ${api.version}, ${tag.name}: ${tag.ops.length} operations with their authentication, parameters, responses and a curl sample.`}>
      <StaticAfterLoad id={`api-${page.slug}`} className={`container ${styles.page}`}>
        <ApiNav api={api} current={page.slug} />
        <main className={`${styles.main} tessera-prose`}>
          <Heading as="h1">{tag.name}</Heading>
          <p>
            {tag.d ? <><Inline text={tag.d} />{' '}</> : null}
            Part of the <Link to="/api">API reference</Link> of {api.title} <code>{api.version}</code>.
          </p>
          {tag.ops.map((op) => (
            <Operation key={op.id} op={op} schemes={schemes} />
          ))}
        </main>
      </StaticAfterLoad>
    </Layout>
  );
}
