import React, { useEffect, useState } from 'react';
import { Box, Button, Label, Text } from '@adminjs/design-system';
import { ApiClient, useTranslation, type BasePropertyProps } from 'adminjs';
import { error, field } from './form-styles.js';

const api = new ApiClient();

interface Choice {
  sku: string;
  name: string;
}
/** One mapping entry: the sku the page or shop sends, the account's product it stands for. */
interface Row {
  from: string;
  to: string;
}

/**
 * A lead source's sku mapping on its create and edit forms: rows of a page's or shop's sku and one of the account's
 * active products, loaded with the products editor's choices (the resource's `productChoices`). The rows go into the
 * payload as `product_mapping.N.from|to` (admin/resources/source-products.ts makes the object); the service's errors
 * (`product_mapping.<sku>`) are shown under the row of that sku.
 */
export default function SkuMapping({ record, onChange, resource, property }: BasePropertyProps) {
  const { translateComponent: tc, translateProperty, translateMessage } = useTranslation();
  const [choices, setChoices] = useState<Choice[]>([]);
  const [rows, setRows] = useState<Row[]>([]);
  const id = record?.id;
  const account = id ? undefined : (record?.params?.account_id as string | undefined);
  const key = property.path;
  useEffect(() => {
    const params = id ? { id } : account ? { account_id: account } : {};
    api
      .resourceAction({ resourceId: resource.id, actionName: 'productChoices', params })
      .then(({ data }) => {
        const d = data as { products?: Choice[]; mapping?: Row[] };
        setChoices(d.products ?? []);
        setRows(d.mapping ?? []);
        // the rows replace the stored object's flattened keys in the form
        onChange?.(key, d.mapping ?? []);
      })
      .catch(() => setChoices([]));
  }, [id, account]);
  const update = (next: Row[]) => {
    setRows(next);
    onChange?.(key, next);
  };
  const set = (i: number, patch: Partial<Row>) => update(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const errors = record?.errors ?? {};
  const errorOf = (row: Row) => errors[`${key}.${row.from.trim()}`]?.message;
  return (
    <Box mb="xl" data-testid="sku-mapping">
      <Label>{translateProperty(property.label, resource.id)}</Label>
      {rows.map((row, i) => (
        <Box key={i} mb="default" data-testid="mapping-row">
          <Box flex flexDirection="row" style={{ gap: 8, alignItems: 'center' }}>
            <input
              aria-label={tc('SkuMapping.from', resource.id, { n: i + 1 })}
              name={`${key}.${i}.from`}
              dir="ltr"
              placeholder={tc('SkuMapping.fromPlaceholder', resource.id)}
              value={row.from}
              onChange={(e) => set(i, { from: e.target.value })}
              style={{ ...field, width: 200 }}
            />
            <span aria-hidden="true">→</span>
            <select
              aria-label={tc('SkuMapping.to', resource.id, { n: i + 1 })}
              name={`${key}.${i}.to`}
              value={row.to}
              onChange={(e) => set(i, { to: e.target.value })}
              style={{ ...field, minWidth: 240 }}
            >
              <option value="">{tc('SkuMapping.choose', resource.id)}</option>
              {/* a target no longer active stays shown, so the refusal under the row names what is chosen */}
              {row.to && !choices.some((c) => c.sku === row.to) ? <option value={row.to}>{row.to}</option> : null}
              {choices.map((c) => (
                <option key={c.sku} value={c.sku}>
                  {c.sku} — {c.name}
                </option>
              ))}
            </select>
            <Button type="button" variant="text" size="sm" onClick={() => update(rows.filter((_, j) => j !== i))}>
              {tc('SkuMapping.remove', resource.id)}
            </Button>
          </Box>
          {errorOf(row) ? (
            <div style={error} data-testid="mapping-error">
              {errorOf(row)}
            </div>
          ) : null}
        </Box>
      ))}
      {errors[key] ? (
        <div style={error} data-testid="mapping-error">
          {errors[key].message}
        </div>
      ) : null}
      <Button type="button" variant="outlined" size="sm" onClick={() => update([...rows, { from: '', to: '' }])}>
        {tc('SkuMapping.add', resource.id)}
      </Button>
      {property.description ? (
        <Text variant="sm" mt="sm">
          {translateMessage(property.description, resource.id)}
        </Text>
      ) : null}
    </Box>
  );
}
