import React, { useEffect, useState } from 'react';
import { Box, Button, Label, Text } from '@adminjs/design-system';
import { ApiClient, useActionResponseHandler, useTranslation, type ActionProps } from 'adminjs';
import { choiceField as field } from './form-styles.js';

const api = new ApiClient();

interface Warehouse {
  code: string;
  name: string;
}

/**
 * A new order's "Warehouse" (admin/resources/order-warehouse.ts): the account's warehouses, the order's chosen, and
 * Save, which moves what the order holds there (the server refuses it in words when an enforcing account is short).
 */
export default function OrderWarehouse({ action, resource, record }: ActionProps) {
  const handleResponse = useActionResponseHandler();
  const { translateComponent: t } = useTranslation();
  const [warehouses, setWarehouses] = useState<Warehouse[] | null>(null);
  const [chosen, setChosen] = useState('');
  const [busy, setBusy] = useState(false);
  const names = { resourceId: resource.id, recordId: String(record?.id ?? ''), actionName: action.name };
  const key = names.recordId;

  useEffect(() => {
    api
      .recordAction({ resourceId: resource.id, recordId: key, actionName: 'warehouseChoices' })
      .then(({ data }) => {
        const answer = data as { warehouses?: Warehouse[]; current?: string };
        setWarehouses(answer.warehouses ?? []);
        setChosen(answer.current ?? '');
      })
      .catch(() => setWarehouses([]));
  }, [resource.id, key]);

  const save = () => {
    setBusy(true);
    const data = new FormData();
    data.set('warehouse', chosen);
    api
      .recordAction({ ...names, data })
      .then((answer) => handleResponse(answer))
      .finally(() => setBusy(false));
  };

  return (
    <Box variant="container" p="xl" data-testid="order-warehouse">
      <Text mb="lg">{t('orderWarehouse.intro')}</Text>
      <Label htmlFor="warehouse">{t('orderWarehouse.label')}</Label>
      <select
        id="warehouse"
        style={field}
        value={chosen}
        disabled={!warehouses?.length}
        onChange={(e) => setChosen(e.target.value)}
      >
        {(warehouses ?? []).map((w) => (
          <option key={w.code} value={w.code}>{`${w.code} · ${w.name}`}</option>
        ))}
      </select>
      <Box mt="lg">
        <Button variant="contained" disabled={busy || !chosen} onClick={save} data-testid="order-warehouse-save">
          {busy ? t('orderWarehouse.saving') : t('orderWarehouse.save')}
        </Button>
      </Box>
    </Box>
  );
}
