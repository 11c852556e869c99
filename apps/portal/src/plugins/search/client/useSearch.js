// The search state both the modal and the /search page use: runs `search(query)` whenever the
// query changes, drops answers that arrive after a newer query, and reports a failed backend.
import { useEffect, useState } from 'react';

/** @param {string} query @param {(q: string) => Promise<unknown[]>} search @param {unknown[]} deps */
export function useSearch(query, search, deps) {
  const [state, setState] = useState({ status: 'idle', results: [] });
  useEffect(() => {
    let live = true;
    if (!query.trim()) {
      setState({ status: 'idle', results: [] });
      return undefined;
    }
    setState((s) => ({ ...s, status: 'loading' }));
    search(query).then(
      (results) => live && setState({ status: 'done', results }),
      (error) => live && setState({ status: 'error', results: [], noIndex: error?.code === 'NO_INDEX' }),
    );
    return () => {
      live = false;
    };
  }, [query, ...deps]);
  return state;
}
