// The /search page for both backends: the offline index by default, Algolia when it was configured
// at build time. Unlike a page that waits forever, a backend that cannot be reached is reported.
import React from 'react';
import Layout from '@theme/Layout';
import Heading from '@theme/Heading';
import Link from '@docusaurus/Link';
import useBaseUrl from '@docusaurus/useBaseUrl';
import { usePluginData } from '@docusaurus/useGlobalData';
import { useSearchQueryString } from '@docusaurus/theme-common';
import { searchAlgolia, searchLocal } from '@site/src/plugins/search/client/search.js';
import { useSearch } from '@site/src/plugins/search/client/useSearch.js';
import { SearchError } from '@site/src/plugins/search/client/SearchError.js';
import styles from './styles.module.css';

export default function SearchPage() {
  const { algolia, indexFile } = usePluginData('tessera-search');
  const indexUrl = useBaseUrl(`/${indexFile}`);
  const [query, setQuery] = useSearchQueryString();
  const state = useSearch(query, (q) => (algolia ? searchAlgolia(algolia, q, 30) : searchLocal(indexUrl, q, 50)), [algolia, indexUrl]);

  const title = query ? `Search results for "${query}"` : 'Search the documentation';
  return (
    <Layout title={title} description="Search the Tessera documentation">
      <main className={`container margin-vert--lg ${styles.page}`}>
        <Heading as="h1">{title}</Heading>
        <form role="search" onSubmit={(e) => e.preventDefault()}>
          <input
            className={styles.input}
            type="search"
            name="q"
            aria-label="Search"
            placeholder="Type your search here"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            autoComplete="off"
          />
        </form>
        <div aria-live="polite" className={styles.status}>
          {state.status === 'loading' ? <p>Loading…</p> : null}
          {state.status === 'error' ? <SearchError state={state} className={styles.error} titleClassName={styles.errorTitle} /> : null}
          {state.status === 'done' ? (
            <p>{state.results.length === 1 ? 'One document found' : `${state.results.length} documents found`}</p>
          ) : null}
        </div>
        {state.results.map((r) => (
          <article key={r.url} className={styles.result}>
            <Heading as="h2" className={styles.resultTitle}>
              <Link to={r.url}>{r.heading || r.title}</Link>
            </Heading>
            {r.heading ? <p className={styles.breadcrumb}>{r.title}</p> : null}
            <p>{r.excerpt}</p>
          </article>
        ))}
      </main>
    </Layout>
  );
}
