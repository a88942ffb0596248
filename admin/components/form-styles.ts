import type React from 'react';

/** The panel's own form fields (the products editor, the sku mapping): AdminJS's input look, and an error under one. */
export const field: React.CSSProperties = {
  height: 36,
  padding: '0 8px',
  border: '1px solid #c0c0ca',
  borderRadius: 4,
  fontSize: 14,
  background: '#fff',
  boxSizing: 'border-box',
};
export const error: React.CSSProperties = { color: '#c20012', fontSize: 12, marginTop: 4 };

/** A choice among a few (the push's shipping company, an order's warehouse): a native select in the same look. */
export const choiceField: React.CSSProperties = { ...field, minWidth: 260 };
