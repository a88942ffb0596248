import React from 'react';
import { ValueGroup } from '@adminjs/design-system';
import { useTranslation, type BasePropertyProps } from 'adminjs';
import { statusColour, statusKindOf, statusLabel, type StatusKind } from './status-palette.js';

/** A status in the reader's language (`labels.status.<status>` of admin/locales/*.json; unknown ones as written). */
export function useStatusWord(): (status: string | null | undefined) => string {
  const { translateLabel, i18n } = useTranslation();
  // one function per language, so charts that depend on it are drawn again when the language changes
  return React.useCallback(
    (status) => (status ? translateLabel(`status.${status}`, { defaultValue: statusLabel(status) }) : '—'),
    [i18n.language],
  );
}

/** A word on a coloured pill (white text: every palette colour is dark enough), never wrapped. */
export function Pill({
  colour,
  children,
  ...data
}: {
  colour: string;
  children: React.ReactNode;
  [data: `data-${string}`]: string;
}) {
  return (
    <span
      {...data}
      style={{
        display: 'inline-block',
        whiteSpace: 'nowrap',
        padding: '2px 10px',
        borderRadius: 12,
        fontSize: 12,
        fontWeight: 600,
        lineHeight: '18px',
        color: '#fff',
        background: colour,
      }}
    >
      {children}
    </span>
  );
}

/** A status in its palette colour and in words ("No answer"), never wrapped. */
export function StatusPill({ kind, status }: { kind: StatusKind; status: string | null | undefined }) {
  const word = useStatusWord();
  return (
    <Pill data-status={status ?? ''} colour={statusColour(kind, status)}>
      {word(status)}
    </Pill>
  );
}

/** The status column of leads, orders and their histories (list and show), coloured by the one palette. */
export default function StatusBadge({ property, record, resource, where }: BasePropertyProps) {
  const { translateProperty } = useTranslation();
  const value = record?.params?.[property.path] as string | null | undefined;
  const pill = value ? <StatusPill kind={statusKindOf(resource.id)} status={value} /> : <span>—</span>;
  if (where !== 'show') return pill;
  return <ValueGroup label={translateProperty(property.label, resource.id)}>{pill}</ValueGroup>;
}
