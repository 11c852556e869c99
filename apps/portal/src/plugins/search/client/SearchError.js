// What the search modal and the /search page show when search fails: a missing offline index (the
// development server never has one) is explained with the commands that build it; anything else is
// a backend that could not be reached.
import React from 'react';

export function SearchError({ state, className, titleClassName }) {
  if (state.noIndex) {
    return (
      <div className={className} role="alert">
        <p className={titleClassName}>Search needs a production build</p>
        <p>
          The search index is written when the site is built, and the development server does not build
          it. Run <code>npm run build -w apps/portal</code>, then <code>npm run serve -w apps/portal</code>,
          and search there.
        </p>
      </div>
    );
  }
  return (
    <div className={className} role="alert">
      <p className={titleClassName}>Unable to fetch results</p>
      <p>You might want to check your network connection.</p>
    </div>
  );
}
