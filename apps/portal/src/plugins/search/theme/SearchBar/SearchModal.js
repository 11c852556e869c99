import React, { useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { useHistory } from '@docusaurus/router';
import useBaseUrl from '@docusaurus/useBaseUrl';
import { usePluginData } from '@docusaurus/useGlobalData';
import { searchLocal } from '../../client/search.js';
import { useSearch } from '../../client/useSearch.js';
import { SearchError } from '../../client/SearchError.js';
import styles from './styles.module.css';

export default function SearchModal({ onClose, initialQuery = '' }) {
  const { indexFile } = usePluginData('tessera-search');
  const indexUrl = useBaseUrl(`/${indexFile}`);
  const searchPage = useBaseUrl('/search');
  const history = useHistory();
  const [query, setQuery] = useState(initialQuery);
  const [active, setActive] = useState(0);
  const input = useRef(null);
  const previousFocus = useRef(typeof document !== 'undefined' ? document.activeElement : null);

  useEffect(() => {
    input.current?.focus();
    const restore = previousFocus.current;
    document.body.style.overflow = 'hidden';
    return () => {
      document.body.style.overflow = '';
      restore?.focus?.();
    };
  }, []);

  const state = useSearch(query, (q) => searchLocal(indexUrl, q, 10), [indexUrl]);
  // A new answer starts at its first result.
  useEffect(() => setActive(0), [state.results]);

  function go(url) {
    onClose();
    history.push(url);
  }

  function onKeyDown(event) {
    if (event.key === 'Escape') {
      event.preventDefault();
      onClose();
    } else if (event.key === 'ArrowDown') {
      event.preventDefault();
      setActive((a) => Math.min(a + 1, state.results.length - 1));
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      setActive((a) => Math.max(a - 1, 0));
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const hit = state.results[active];
      if (hit) go(hit.url);
      else if (query.trim()) go(`${searchPage}?q=${encodeURIComponent(query)}`);
    }
  }

  return createPortal(
    <div className={styles.backdrop} onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className={styles.modal} role="dialog" aria-modal="true" aria-label="Search the documentation" onKeyDown={onKeyDown}>
        <input
          ref={input}
          className={styles.input}
          type="search"
          placeholder="Search the documentation"
          aria-label="Search the documentation"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <div className={styles.results} aria-live="polite">
          {state.status === 'error' ? <SearchError state={state} className={styles.message} titleClassName={styles.title} /> : null}
          {state.status === 'done' && state.results.length === 0 ? (
            <p className={styles.message}>No results for “{query}”.</p>
          ) : null}
          {state.results.length ? (
            <ul role="listbox" aria-label="Results">
              {state.results.map((r, i) => (
                <li key={r.url} role="option" aria-selected={i === active}>
                  <a
                    href={r.url}
                    className={i === active ? styles.active : undefined}
                    onMouseEnter={() => setActive(i)}
                    onClick={(e) => {
                      e.preventDefault();
                      go(r.url);
                    }}
                  >
                    <span className={styles.hitTitle}>{r.heading || r.title}</span>
                    {r.heading ? <span className={styles.hitPage}>{r.title}</span> : null}
                    <span className={styles.hitExcerpt}>{r.excerpt}</span>
                  </a>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
        <div className={styles.footer}>
          {query.trim() ? (
            <a href={`${searchPage}?q=${encodeURIComponent(query)}`} onClick={(e) => { e.preventDefault(); go(`${searchPage}?q=${encodeURIComponent(query)}`); }}>
              See all results
            </a>
          ) : <span />}
          <span><kbd>↵</kbd> open · <kbd>↑</kbd><kbd>↓</kbd> move · <kbd>Esc</kbd> close</span>
        </div>
      </div>
    </div>,
    document.body,
  );
}
