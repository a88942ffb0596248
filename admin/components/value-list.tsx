import React from 'react';
import { ValueGroup } from '@adminjs/design-system';
import { flat, useTranslation, type BasePropertyProps } from 'adminjs';
import { Isolated } from './local-text.js';
import { EMPTY_MARK, isEmptyValue } from './empty-value.js';

/**
 * Any array property (webhook events, API key scopes, one added later) as a list of its values in words, from the
 * locale's `labels.<property>.<value>`, the key AdminJS's own selects and filters use for the same values. A list
 * cell is one line cut with an ellipsis (whole on hover); the show page lists one value a line.
 */
export default function ValueList({ property, record, resource, where }: BasePropertyProps) {
  const { tl, translateProperty, i18n } = useTranslation();
  const raw = flat.get(record?.params ?? {}, property.path) as unknown;
  const values = (Array.isArray(raw) && !isEmptyValue(raw) ? raw : []).map(String);
  const words = values.map((v) => tl(`${property.path}.${v}`, resource.id, { defaultValue: v }));
  // Arabic separates with its own comma
  const text = words.join(i18n.language === 'ar' ? '، ' : ', ') || EMPTY_MARK;
  if (where !== 'show')
    return (
      <span
        data-testid="value-list"
        title={text}
        style={{
          display: 'inline-block',
          maxWidth: '12em',
          overflow: 'hidden',
          whiteSpace: 'nowrap',
          textOverflow: 'ellipsis',
          verticalAlign: 'middle',
        }}
      >
        <Isolated>{text}</Isolated>
      </span>
    );
  return (
    <ValueGroup label={translateProperty(property.label, resource.id)}>
      <ul data-testid="value-list" style={{ margin: 0, paddingInlineStart: '1.2em', listStyle: 'disc' }}>
        {words.map((w, i) => (
          <li key={values[i]}>
            <Isolated>{w}</Isolated>
          </li>
        ))}
        {!words.length && <li style={{ listStyle: 'none' }}>{EMPTY_MARK}</li>}
      </ul>
    </ValueGroup>
  );
}
