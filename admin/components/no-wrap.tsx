import React from 'react';
import { ValueGroup } from '@adminjs/design-system';
import { useTranslation, type BasePropertyProps } from 'adminjs';
import { countryName, isLeftToRightValue } from '../../src/locale-format.js';
import { useViewer } from './local-text.js';

const ONE_LINE: React.CSSProperties = {
  whiteSpace: 'nowrap',
  textOverflow: 'ellipsis',
  verticalAlign: 'middle',
  fontVariantNumeric: 'tabular-nums',
};

/** Properties that are identifiers, numbers or addresses: always left to right (dir="ltr"), even in Arabic. */
const LEFT_TO_RIGHT = new Set([
  'phone',
  'phone_normalized',
  'reference',
  'lead_reference',
  'order_reference',
  'tracking_number',
  'email',
  'sku',
  'url',
  'event_id',
  'sequence_key',
]);

/** Columns that hold a code of a short list (a source's kind, a file's type, a push's state): shown in words. */
const CODED = new Set(['kind', 'file_type', 'file_extension', 'push_state', 'outcome', 'event', 'role']);
/** Columns that hold a country's ISO code: shown by its name in the reader's language (`MA` → "Maroc"). */
const COUNTRIES = new Set(['phone_country', 'country']);

/**
 * A code in the reader's words: a country by its name, a value of a short list by its `labels.<path>.<value>` (the key
 * AdminJS's selects and filters use), anything else as it is; '—' for nothing.
 */
function useWords(props: BasePropertyProps): (raw: unknown) => string {
  const { tl } = useTranslation();
  const { language } = useViewer();
  const { property, resource } = props;
  return (raw) => {
    if (raw === null || raw === undefined || raw === '') return '—';
    const value = String(raw);
    if (COUNTRIES.has(property.path)) return countryName(value, language);
    if (!CODED.has(property.path) && !property.availableValues?.length) return value;
    return tl(`${property.path}.${value}`, resource.id, { defaultValue: value });
  };
}

/**
 * Widths in a list: references (12 characters) whole, a phone whole up to E.164's 16 characters (an uncallable phone,
 * kept as typed, may have 100: cut like the rest), other texts cut at 7.5em; whole on hover.
 */
const LIST_WIDTH: Record<string, string> = {
  reference: 'none',
  lead_reference: 'none',
  order_reference: 'none',
  phone: '9em',
  // E.164: at most 16 characters
  phone_normalized: 'none',
  // a carrier's code and an account's name are read whole on hover or on the record; the orders list of a whole
  // suite's data (uncallable phones, long names, zones wrapping under the time) overflowed 1440 px by 11–14 px
  // with both at 7.5em
  tracking_number: '6em',
  account_id: '6em',
};

/**
 * An identifier (reference, phone, city, tracking number, the account's name) or a customer's name on one line: the
 * list's columns otherwise break "LD7K2M9QX4TB" or "+212 611 000 222" mid-word. On the show page a phone is a tel:
 * link, and the reference of a lead's order (of an order's lead) links to it.
 */
export default function NoWrap(props: BasePropertyProps) {
  const { property, record, resource, where } = props;
  const { translateProperty } = useTranslation();
  const words = useWords(props);
  const raw = record?.params?.[property.path];
  // a reference (the account column) shows the title of the record it points to, linked to it
  const target = property.reference ? record?.populated?.[property.path] : undefined;
  const text = target ? target.title : words(raw);
  const leftToRight = LEFT_TO_RIGHT.has(property.path) || isLeftToRightValue(text);
  const linked = where === 'show' && text !== '—';
  let shown: React.ReactNode = text;
  if (target) shown = <a href={`/admin/resources/${property.reference}/records/${target.id}/show`}>{text}</a>;
  if (linked && property.path === 'phone') shown = <a href={`tel:${text.replace(/[^\d+]/g, '')}`}>{text}</a>;
  const other = { order_reference: 'orders', lead_reference: 'leads' }[property.path];
  if (linked && other)
    shown = <a href={`/admin/resources/${other}?filters.reference=${encodeURIComponent(text)}`}>{text}</a>;
  // identifiers and numbers read left to right in Arabic too; a name or a city follows its own letters
  shown = (
    <bdi dir={leftToRight ? 'ltr' : 'auto'} data-path={property.path} data-isolate="">
      {shown}
    </bdi>
  );
  if (where !== 'show')
    // a long name or account is cut with an ellipsis (whole on hover), never broken into letters; an identifier keeps
    // its start in Arabic too (the box's direction decides which end the ellipsis cuts)
    return (
      <span
        title={text}
        dir={leftToRight ? 'ltr' : undefined}
        style={{
          ...ONE_LINE,
          display: 'inline-block',
          maxWidth: LIST_WIDTH[property.path] ?? '7.5em',
          overflow: 'hidden',
        }}
      >
        {shown}
      </span>
    );
  // on its page a long text (an address, an error) wraps; a short one or an identifier stays on one line
  const value = <span style={leftToRight || text.length <= 40 ? ONE_LINE : undefined}>{shown}</span>;
  return <ValueGroup label={translateProperty(property.label, resource.id)}>{value}</ValueGroup>;
}
