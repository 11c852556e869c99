// Markdown tables scroll sideways on narrow screens (Docusaurus styles them display:block with
// overflow:auto). A scrollable region must be reachable by keyboard, so each table is focusable
// and labelled as a scrollable table.
import React from 'react';
import MDXComponents from '@theme-original/MDXComponents';

function Table(props) {
  return <table tabIndex={0} aria-label={props['aria-label'] ?? 'Table (scrolls sideways on narrow screens)'} {...props} />;
}

export default { ...MDXComponents, table: Table };
