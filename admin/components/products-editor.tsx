import React, { useEffect, useState } from 'react';
import { Box, Button, Label, Text } from '@adminjs/design-system';
import { ApiClient, useTranslation, type EditPropertyProps } from 'adminjs';
import { error, field } from './form-styles.js';

const api = new ApiClient();

interface Choice {
  sku: string;
  name: string;
  price: number;
}
/** One row of the form: strings as typed (an empty quantity or price takes the service's default). */
interface Row {
  sku: string;
  quantity: string;
  price: string;
}

/** The errors the service gave for the products (`products`, `products.1.price`…), by path. */
function errorsOf(record: EditPropertyProps['record'], key: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(record?.errors ?? {}))
    if (k === key || k.startsWith(`${key}.`)) out[k.replace(key, 'products')] = String(v?.message ?? '');
  return out;
}

/**
 * The products of a lead on its create and edit forms: rows of a sku picked from the account's active products, a
 * quantity and a price (filled with the catalogue price when a sku is picked; left empty, the service's defaults apply:
 * quantity 1, the catalogue price). The rows go into the form's payload as `products.N.sku|quantity|price`; the
 * service's errors on them are shown under their row. Also a lead source's default products (the property
 * `default_products`: rows `default_products.N.…`, its resource's `productChoices` lists the same way).
 */
export default function ProductsEditor({ record, onChange, resource, property }: EditPropertyProps) {
  const { translateComponent, translateProperty, translateMessage } = useTranslation();
  const key = property?.path ?? 'products';
  const [choices, setChoices] = useState<Choice[]>([]);
  const [rows, setRows] = useState<Row[]>([]);
  const id = record?.id;
  // a new lead's products are those of the account an admin chose on the form (the server ignores it for tenants)
  const account = id ? undefined : (record?.params?.account_id as string | undefined);
  useEffect(() => {
    const params = id ? { id } : account ? { account_id: account } : {};
    api
      .resourceAction({ resourceId: resource.id, actionName: 'productChoices', params })
      .then(({ data }) => {
        const d = data as { products?: Choice[]; lines?: { sku: string; quantity: number; price: number }[] };
        setChoices(d.products ?? []);
        // a source's line may have no price of its own (the catalogue's then): left empty
        const lines = (d.lines ?? []).map((l) => ({
          sku: l.sku,
          quantity: String(l.quantity),
          price: l.price === undefined || l.price === null ? '' : String(l.price),
        }));
        setRows(lines);
        if (lines.length || key !== 'products') onChange(key, lines);
      })
      .catch(() => setChoices([]));
    // once per record (and chosen account): the rows are the form's from then on
  }, [id, account]);
  const update = (next: Row[]) => {
    setRows(next);
    onChange(key, next);
  };
  const set = (i: number, patch: Partial<Row>) => update(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const pick = (i: number, sku: string) => {
    const price = choices.find((c) => c.sku === sku)?.price;
    set(i, { sku, ...(price !== undefined ? { price: String(price) } : {}) });
  };
  const errors = errorsOf(record, key);
  const own = key === 'products';
  return (
    <Box mb="xl" data-testid={own ? 'products-editor' : `products-editor-${key}`}>
      <Label>{own ? translateComponent('productsEditor.title') : translateProperty(property.label, resource.id)}</Label>
      {rows.map((row, i) => (
        <Box key={i} mb="default" data-testid="product-row">
          <Box flex flexDirection="row" style={{ gap: 8, alignItems: 'center' }}>
            <select
              aria-label={translateComponent('productsEditor.product', { n: i + 1 })}
              name={`${key}.${i}.sku`}
              value={row.sku}
              onChange={(e) => pick(i, e.target.value)}
              style={{ ...field, minWidth: 260 }}
            >
              <option value="">{translateComponent('productsEditor.choose')}</option>
              {choices.map((c) => (
                <option key={c.sku} value={c.sku}>
                  {c.sku} — {c.name} ({c.price})
                </option>
              ))}
            </select>
            <input
              aria-label={translateComponent('productsEditor.quantityOf', { n: i + 1 })}
              name={`${key}.${i}.quantity`}
              inputMode="numeric"
              placeholder="1"
              value={row.quantity}
              onChange={(e) => set(i, { quantity: e.target.value })}
              style={{ ...field, width: 90 }}
            />
            <input
              aria-label={translateComponent('productsEditor.priceOf', { n: i + 1 })}
              name={`${key}.${i}.price`}
              inputMode="decimal"
              placeholder={translateComponent('productsEditor.cataloguePrice')}
              value={row.price}
              onChange={(e) => set(i, { price: e.target.value })}
              style={{ ...field, width: 140 }}
            />
            <Button type="button" variant="text" size="sm" onClick={() => update(rows.filter((_, j) => j !== i))}>
              {translateComponent('productsEditor.remove')}
            </Button>
          </Box>
          {['sku', 'quantity', 'price'].map((f) =>
            errors[`products.${i}.${f}`] ? (
              <div key={f} style={error} data-testid="product-error">
                {errors[`products.${i}.${f}`]}
              </div>
            ) : null,
          )}
        </Box>
      ))}
      {errors.products ? (
        <div style={error} data-testid="product-error">
          {errors.products}
        </div>
      ) : null}
      <Button
        type="button"
        variant="outlined"
        size="sm"
        onClick={() => update([...rows, { sku: '', quantity: '', price: '' }])}
      >
        {translateComponent('productsEditor.add')}
      </Button>
      {choices.length === 0 ? <Text mt="sm">{translateComponent('productsEditor.noActiveProduct')}</Text> : null}
      {property?.description ? (
        <Text variant="sm" mt="sm">
          {translateMessage(property.description, resource.id)}
        </Text>
      ) : null}
    </Box>
  );
}
