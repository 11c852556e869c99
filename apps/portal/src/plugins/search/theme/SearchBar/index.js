// Offline search: a navbar button; Ctrl/Cmd+K or "/" opens the modal, which is a separate chunk
// loaded on first open (the index itself is fetched by the modal).
import React, { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import styles from './styles.module.css';

const SearchModal = lazy(() => import('./SearchModal.js'));

function isTyping(target) {
  const tag = target?.tagName;
  return target?.isContentEditable || tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT';
}

export default function SearchBar() {
  const [open, setOpen] = useState(false);
  const [initial, setInitial] = useState('');
  const close = useCallback(() => setOpen(false), []);
  useEffect(() => {
    function onKey(event) {
      const k = event.key?.toLowerCase();
      if (k === 'k' && (event.metaKey || event.ctrlKey)) {
        event.preventDefault();
        setOpen((o) => !o);
      } else if (event.key === '/' && !open && !isTyping(event.target)) {
        event.preventDefault();
        setOpen(true);
      }
    }
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);
  return (
    <>
      <button
        type="button"
        className={styles.button}
        aria-label="Search (Ctrl+K)"
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
        onKeyDown={(e) => {
          if (e.key.length === 1 && /\w/.test(e.key) && !e.ctrlKey && !e.metaKey) {
            setInitial(e.key);
            setOpen(true);
          }
        }}
      >
        <svg width="16" height="16" viewBox="0 0 20 20" aria-hidden="true">
          <path d="M14.4 12.9l4.3 4.3-1.5 1.5-4.3-4.3a7.5 7.5 0 1 1 1.5-1.5zM8.5 14a5.5 5.5 0 1 0 0-11 5.5 5.5 0 0 0 0 11z" fill="currentColor" />
        </svg>
        <span className={styles.label}>Search</span>
        <kbd className={styles.kbd}>Ctrl K</kbd>
      </button>
      {open ? (
        <Suspense fallback={null}>
          <SearchModal onClose={close} initialQuery={initial} />
        </Suspense>
      ) : null}
    </>
  );
}
