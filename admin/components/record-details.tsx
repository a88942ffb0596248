import React from 'react';
import { ValueGroup } from '@adminjs/design-system';
import { useTranslation, type BasePropertyProps } from 'adminjs';
import { CustomData, parseList, ProductsTable, Timeline, type HistoryEntry, type ProductLine } from './lead-parts.js';
import { statusKindOf } from './status-palette.js';
import { useViewer, zoneOf } from './zoned-time.js';
import { formatInZone } from '../../src/time-zones.js';

/**
 * The computed parts of a lead's or an order's show page, by property: `history_timeline` (a timeline),
 * `products_table` (a table with totals) and `custom_data` (key/value rows), each a JSON text the after hook of
 * admin/resources/panel-ui.ts filled from the service's show.
 */
export default function RecordDetails({ property, record, resource }: BasePropertyProps) {
  const { translateProperty } = useTranslation();
  const raw = record?.params?.[property.path];
  const kind = statusKindOf(resource.id);
  const viewer = useViewer();
  const zone = zoneOf(record, resource.id, viewer.zone);
  const when = (iso: string | null | undefined) => formatInZone(iso, zone, viewer.language);
  let body: React.ReactNode;
  if (property.path === 'history_timeline')
    body = <Timeline kind={kind} entries={parseList<HistoryEntry>(raw)} when={when} />;
  else if (property.path === 'products_table')
    body = <ProductsTable lines={parseList<ProductLine>(raw)} total={record?.params?.total as string} />;
  else body = <CustomData data={parseList<{ key: string; value: string }>(raw)} />;
  return <ValueGroup label={translateProperty(property.label, resource.id)}>{body}</ValueGroup>;
}
