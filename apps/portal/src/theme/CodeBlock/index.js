// Code blocks load the highlighter on first use (see src/plugins/lazy-prism). The server render waits
// for it, so the HTML is highlighted; in the browser, React keeps that HTML until the chunk arrives.
import React, { lazy, Suspense } from 'react';

const Highlighted = lazy(() => import('./Highlighted.js'));

function Plain({ children, className }) {
  return (
    <pre className={className}>
      <code>{children}</code>
    </pre>
  );
}

export default function CodeBlock(props) {
  return (
    <Suspense fallback={<Plain {...props} />}>
      <Highlighted {...props} />
    </Suspense>
  );
}
