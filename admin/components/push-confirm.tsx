import React, { useEffect, useState } from 'react';
import { Box, Button, Label, Text } from '@adminjs/design-system';
import { ApiClient, useActionResponseHandler, useTranslation, type ActionProps } from 'adminjs';
import { choiceField as field } from './form-styles.js';

const api = new ApiClient();

interface Company {
  code: string;
  name: string;
}

/**
 * The confirmation of a push (the orders list's bulk push, an order page's "Push to carrier"): it names the shipping
 * company the orders go to, asks which one when the account has several active ones (a select, nothing chosen until
 * the user chooses), and says so in words when it has none (no Confirm then). Acts only when Confirm is pressed,
 * with a POST carrying the chosen company's code; the server checks it is an active one of the orders' account.
 */
export default function PushConfirm({ action, resource, record, records }: ActionProps) {
  const handleResponse = useActionResponseHandler();
  const { translateComponent: t } = useTranslation();
  const [companies, setCompanies] = useState<Company[] | null>(null);
  const [chosen, setChosen] = useState('');
  const [busy, setBusy] = useState(false);
  const ids = action.actionType === 'record' ? [String(record?.id ?? '')] : (records ?? []).map((r) => String(r.id));
  const key = ids.join(',');

  useEffect(() => {
    if (!key) return;
    api
      .resourceAction({ resourceId: resource.id, actionName: 'pushChoices', params: { ids: key } })
      .then(({ data }) => {
        const list = (data as { companies?: Company[] }).companies ?? [];
        setCompanies(list);
        setChosen(list.length === 1 ? list[0].code : '');
      })
      .catch(() => setCompanies([]));
  }, [key]);

  const run = () => {
    setBusy(true);
    const data = new FormData();
    if (chosen) data.set('shipping_company', chosen);
    const names = { resourceId: resource.id, actionName: action.name, data };
    const call =
      action.actionType === 'record'
        ? api.recordAction({ ...names, recordId: String(record?.id) })
        : api.bulkAction({ ...names, recordIds: ids });
    call.then((answer) => handleResponse(answer)).finally(() => setBusy(false));
  };

  const count = ids.filter(Boolean).length;
  const many = (companies?.length ?? 0) > 1;
  const only = companies?.length === 1 ? companies[0] : null;
  return (
    <Box variant="container" p="xl" data-testid="push-confirm">
      <Text mb="lg">{action.actionType === 'record' ? t('pushConfirm.askOne') : t('pushConfirm.ask')}</Text>
      {action.actionType === 'bulk' && <Text mb="lg">{t('confirmAction.selected', { count })}</Text>}
      {companies === null && <Text mb="lg">{t('pushConfirm.loading')}</Text>}
      {companies?.length === 0 && (
        <Text mb="lg" data-testid="push-no-carrier" style={{ color: '#b91c1c' }}>
          {t('pushConfirm.none')}
        </Text>
      )}
      {only && (
        <Text mb="lg" data-testid="push-only-carrier">
          {t('pushConfirm.only', { name: only.name })}
        </Text>
      )}
      {many && (
        <Box mb="lg">
          <Label htmlFor="push-carrier">{t('pushConfirm.carrier')}</Label>
          <select
            id="push-carrier"
            data-testid="push-carrier"
            style={field}
            value={chosen}
            onChange={(e) => setChosen(e.target.value)}
          >
            <option value="">{t('pushConfirm.choose')}</option>
            {companies!.map((c) => (
              <option key={c.code} value={c.code}>
                {c.name}
              </option>
            ))}
          </select>
          {!chosen && <Text mt="sm">{t('pushConfirm.chooseFirst')}</Text>}
        </Box>
      )}
      <Button variant="contained" onClick={run} disabled={busy || !count || !chosen}>
        {busy ? t('confirmAction.working') : t('confirmAction.confirm')}
      </Button>
    </Box>
  );
}
