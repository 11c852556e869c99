// The browser half of search: the offline index (loaded once, on first use) and the hosted Algolia
// query. Both resolve to [{ url, title, heading, excerpt }] and reject when the backend is unreachable.

let indexPromise = null;

/**
 * The offline index is written by the production build (the plugin's postBuild). The development
 * server (`npm run dev`) has none: it answers 404, or its single-page fallback HTML; that is not a
 * network failure, and the search UI says so (`error.code === 'NO_INDEX'`).
 */
export class NoIndexError extends Error {
  constructor(status) {
    super(`search index: not built (HTTP ${status})`);
    this.code = 'NO_INDEX';
  }
}

export function loadIndex(url) {
  if (!indexPromise) {
    indexPromise = fetch(url)
      .then((res) => {
        const json = (res.headers.get('content-type') || '').includes('json');
        if (res.status === 404 || (res.ok && !json)) throw new NoIndexError(res.status);
        if (!res.ok) throw new Error(`search index: HTTP ${res.status}`);
        return res.json();
      })
      .then((data) =>
        data.docs.map((d) => ({ ...d, lt: d.t.toLowerCase(), lh: d.h.toLowerCase(), lx: d.x.toLowerCase() })),
      )
      .catch((error) => {
        indexPromise = null;
        throw error;
      });
  }
  return indexPromise;
}

export function terms(query) {
  return query.toLowerCase().split(/[^\p{L}\p{N}_./-]+/u).filter(Boolean);
}

function excerpt(text, words) {
  const lower = text.toLowerCase();
  const at = words.map((w) => lower.indexOf(w)).filter((i) => i >= 0).sort((a, b) => a - b)[0] ?? 0;
  const start = Math.max(0, at - 60);
  return `${start > 0 ? '…' : ''}${text.slice(start, start + 180)}${start + 180 < text.length ? '…' : ''}`;
}

/** Every query word must occur (as a prefix of a word, or inside a path-like token); title and heading hits weigh more. */
export function rank(docs, query, limit = 20) {
  const words = terms(query);
  if (!words.length) return [];
  const scored = [];
  for (const d of docs) {
    let score = 0;
    let all = true;
    for (const w of words) {
      const inTitle = d.lt.includes(w);
      const inHeading = d.lh.includes(w);
      const inText = d.lx.includes(w);
      if (!inTitle && !inHeading && !inText) {
        all = false;
        break;
      }
      score += (inTitle ? 6 : 0) + (inHeading ? 10 : 0) + (inText ? 1 : 0);
    }
    if (!all) continue;
    if (!d.h) score += 2; // the page itself ranks above its sections on a title match
    scored.push({ score, d });
  }
  scored.sort((a, b) => b.score - a.score || a.d.u.localeCompare(b.d.u));
  return scored.slice(0, limit).map(({ d }) => ({ url: d.u, title: d.t, heading: d.h, excerpt: excerpt(d.x, words) }));
}

export async function searchLocal(indexUrl, query, limit) {
  return rank(await loadIndex(indexUrl), query, limit);
}

/** Algolia's REST search endpoint, as DocSearch records are shaped (hierarchy, url, content). */
export async function searchAlgolia({ appId, apiKey, indexName }, query, limit = 20) {
  const res = await fetch(`https://${appId}-dsn.algolia.net/1/indexes/${encodeURIComponent(indexName)}/query`, {
    method: 'POST',
    headers: { 'X-Algolia-Application-Id': appId, 'X-Algolia-API-Key': apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ params: new URLSearchParams({ query, hitsPerPage: String(limit) }).toString() }),
  });
  if (!res.ok) throw new Error(`Algolia: HTTP ${res.status}`);
  const data = await res.json();
  return data.hits.map((hit) => {
    const levels = Object.values(hit.hierarchy || {}).filter(Boolean);
    const url = new URL(hit.url, window.location.href);
    return {
      url: url.origin === window.location.origin ? `${url.pathname}${url.hash}` : hit.url,
      title: levels[0] || hit.url,
      heading: levels.length > 1 ? levels[levels.length - 1] : '',
      excerpt: hit.content || '',
    };
  });
}
