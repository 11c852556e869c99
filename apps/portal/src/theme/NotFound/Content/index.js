// The 404 page's content: instead of a dead end, a search box (a plain GET form to /search, so it
// works before the page's JavaScript has loaded, or without it) filled with the words of the missing
// address, and the portal's main sections. Only sections with built pages are offered.
import React, { useEffect, useState } from 'react';
import clsx from 'clsx';
import Link from '@docusaurus/Link';
import useBaseUrl from '@docusaurus/useBaseUrl';
import Heading from '@theme/Heading';
import styles from './styles.module.css';

const SECTIONS = [
  ['/', 'Introduction', 'What Tessera is and what works today.'],
  ['/tutorials/development-setup', 'Tutorials', 'From a fresh clone to a running server.'],
  ['/how-tos/creating-an-account-locally', 'How-tos', 'Tasks on a local server, step by step.'],
  ['/explanation/architecture', 'Explanation', 'Architecture, house style and the onepw protocol.'],
  ['/reference/errors', 'Reference', 'Errors, configuration, tokens, emails and more.'],
  ['/relying-parties/reference/using-apis', 'Relying parties', 'Calling the account API from an application.'],
  ['/api', 'API reference', 'Every /v1 operation with its schemas and errors.'],
];

/** Words of the missing address, as a first search query ("/reference/tokns" → "tokns"). */
export function wordsOf(pathname, baseUrl) {
  const rest = pathname.startsWith(baseUrl) ? pathname.slice(baseUrl.length) : pathname;
  const last = decodeURIComponent(rest.split('/').filter(Boolean).pop() ?? '');
  return last.replace(/\.html?$/, '').replace(/[-_.]+/g, ' ').trim().slice(0, 80);
}

export default function NotFoundContent({ className }) {
  const searchUrl = useBaseUrl('/search');
  const baseUrl = useBaseUrl('/');
  const [query, setQuery] = useState('');
  // The static 404.html is the same for every address: the words are read in the browser.
  useEffect(() => setQuery(wordsOf(window.location.pathname, baseUrl)), [baseUrl]);
  return (
    <main className={clsx('container margin-vert--xl', styles.page, className)}>
      <Heading as="h1">Page Not Found</Heading>
      <p>
        No page lives at this address. It may have moved, or the link that brought you here may be
        mistyped. Search the documentation, or start from one of its sections.
      </p>
      <form role="search" action={searchUrl} method="get" className={styles.search}>
        <label htmlFor="not-found-search" className={styles.label}>
          Search the documentation
        </label>
        <div className={styles.row}>
          <input
            id="not-found-search"
            className={styles.input}
            type="search"
            name="q"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            autoComplete="off"
          />
          <button type="submit" className="button button--primary">
            Search
          </button>
        </div>
      </form>
      <Heading as="h2">Main sections</Heading>
      <ul className={styles.sections} aria-label="Main sections">
        {SECTIONS.map(([to, label, what]) => (
          <li key={to}>
            <Link to={to}>{label}</Link>
            <span className={styles.what}>{what}</span>
          </li>
        ))}
      </ul>
    </main>
  );
}
