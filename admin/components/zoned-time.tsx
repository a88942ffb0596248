import React from 'react';
import { FormGroup, FormMessage, Input, Label, ValueGroup } from '@adminjs/design-system';
import { useTranslation, type BasePropertyProps, type RecordJSON } from 'adminjs';
import { FALLBACK_ZONE, formatInZone } from '../../src/time-zones.js';
import { DateText, useViewer } from './local-text.js';

export { useViewer };

/** A wall time as the form keeps it (`2026-12-01T14:30`, what datetime-local gives), not an instant. */
const WALL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;

/** The texts of a record's times, written by the server in the record's zone (admin/resources/panel-times.ts). */
function shownTimes(record: RecordJSON | undefined): {
  zone?: string;
  times: Record<string, { text: string; wall: string; date?: string; time?: string }>;
} {
  try {
    return JSON.parse(String(record?.params?.zoned_times ?? '')) as ReturnType<typeof shownTimes>;
  } catch {
    return { times: {} };
  }
}

/**
 * The zone a record's times are written in: an account's own, the account the record belongs to (its `account_id`
 * reference, populated by AdminJS), else the viewer's account (admin/resources/panel-times.ts does the same on the
 * server).
 */
export function zoneOf(record: RecordJSON | undefined, resourceId: string, viewerZone: string | undefined): string {
  const shown = shownTimes(record).zone;
  if (shown) return shown;
  if (resourceId === 'accounts' && record?.params?.time_zone) return String(record.params.time_zone);
  const account = record?.populated?.account_id as RecordJSON | undefined;
  return String(account?.params?.time_zone ?? viewerZone ?? FALLBACK_ZONE);
}

/** Two day pickers; the server bounds each day in the viewer's account zone (admin/resources/filter-values.ts). */
function DayRange({ property, filter, onChange }: BasePropertyProps & { filter?: Record<string, string> }) {
  const { translateComponent, translateProperty } = useTranslation();
  const { zone } = useViewer();
  const key = (end: string) => `${property.path}~~${end}`;
  const day = (end: string) => String(filter?.[key(end)] ?? '').slice(0, 10);
  return (
    <FormGroup>
      <Label>{translateProperty(property.label, property.resourceId)}</Label>
      {(['from', 'to'] as const).map((end) => (
        <Input
          key={end}
          type="date"
          aria-label={translateComponent(`zonedTime.${end}`)}
          value={day(end)}
          onChange={(e: React.ChangeEvent<HTMLInputElement>) => onChange?.(key(end), e.target.value)}
          style={{ marginBottom: 4, width: '100%' }}
        />
      ))}
      <small>
        {translateComponent('zonedTime.daysIn')} {zone}
      </small>
    </FormGroup>
  );
}

/** A date-time picker in the record's account zone, the zone named beside it; the server converts to UTC. */
function ZonedPicker({ property, record, resource, onChange }: BasePropertyProps) {
  const { translateProperty, translateComponent } = useTranslation();
  const viewer = useViewer();
  const zone = zoneOf(record, resource.id, viewer.zone);
  const raw = record?.params?.[property.path];
  // typed (kept after a refusal) or as the server wrote it in the zone
  const value = !raw
    ? ''
    : WALL.test(String(raw))
      ? String(raw)
      : (shownTimes(record).times[property.path]?.wall ?? '');
  const error = record?.errors?.[property.path];
  return (
    <FormGroup error={!!error}>
      <Label htmlFor={property.path} required={property.isRequired}>
        {translateProperty(property.label, resource.id)}
      </Label>
      <div style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
        <Input
          id={property.path}
          name={property.path}
          type="datetime-local"
          value={value}
          onChange={(e: React.ChangeEvent<HTMLInputElement>) => onChange?.(property.path, e.target.value)}
        />
        <span data-testid={`zone-${property.path}`} title={translateComponent('zonedTime.zone')}>
          {zone}
        </span>
      </div>
      <FormMessage>{error?.message}</FormMessage>
    </FormGroup>
  );
}

/**
 * A time in a list cell, compact so a list of several time columns fits 1280–1440 px: the date on one line, the time
 * with its zone under it; the zone may break after its "/" ("(Africa/" "Casablanca)") when the table is short of room.
 */
function ListTime({ shown, parts }: { shown: string; parts?: { date?: string; time?: string } }) {
  const at = shown.lastIndexOf(' (');
  const zone = at < 0 ? '' : shown.slice(at + 1);
  const [date, time] = parts?.date && parts.time ? [parts.date, parts.time] : [at < 0 ? shown : shown.slice(0, at), ''];
  const [region, ...place] = zone.split('/');
  return (
    <span style={{ display: 'inline-block', fontVariantNumeric: 'tabular-nums', lineHeight: 1.3 }}>
      <DateText style={{ whiteSpace: 'nowrap' }}>{date}</DateText>
      <br />
      {time && (
        <>
          <DateText style={{ whiteSpace: 'nowrap' }}>{time}</DateText>{' '}
        </>
      )}
      <small style={{ color: '#6b7280' }}>
        <span style={{ whiteSpace: 'nowrap' }}>{place.length ? `${region}/` : region}</span>
        {place.length > 0 && (
          <>
            <wbr />
            <span style={{ whiteSpace: 'nowrap' }}>{place.join('/')}</span>
          </>
        )}
      </small>
    </span>
  );
}

/**
 * Every date-time property of every panel resource (applied by admin/resources/panel-times.ts): written in the
 * record's account zone with the zone named ("27 Nov 2026, 14:30 (Africa/Casablanca)"), typed in it, filtered by its
 * days.
 */
export default function ZonedTime(props: BasePropertyProps) {
  const { property, record, resource, where } = props;
  const { translateProperty } = useTranslation();
  const viewer = useViewer();
  if (where === 'filter') return <DayRange {...props} />;
  if (where === 'edit') return <ZonedPicker {...props} />;
  const raw = record?.params?.[property.path] as string | null | undefined;
  const shown =
    shownTimes(record).times[property.path]?.text ??
    formatInZone(raw, zoneOf(record, resource.id, viewer.zone), viewer.language);
  const text = <DateText style={{ whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }}>{shown}</DateText>;
  if (where === 'list') return <ListTime shown={shown} parts={shownTimes(record).times[property.path]} />;
  if (where !== 'show') return text;
  return <ValueGroup label={translateProperty(property.label, resource.id)}>{text}</ValueGroup>;
}
