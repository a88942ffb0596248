import React, { useEffect, useState } from 'react';
import { Box, Button, H2, Text, ValueGroup } from '@adminjs/design-system';
import { ApiClient, useTranslation } from 'adminjs';
import { cardStyle } from './status-palette.js';
import { useViewer } from './local-text.js';
import { countryName } from '../../src/locale-format.js';

interface Own {
  id: number;
  editable: boolean;
}
interface Answer {
  account: Own | null;
  profile: Own | null;
}

const api = new ApiClient();
const card = cardStyle({ maxWidth: 640 });
const records = (resource: string, id: number, action: string) =>
  `/admin/resources/${resource}/records/${id}/${action}`;

/** The thresholds of the customers' risk rule (src/customers/customer.risk.ts), edited on the account's form. */
const RISK_FIELDS = ['risk_min_returns', 'risk_min_orders', 'risk_min_delivery_rate'];

/**
 * "My account": the signed-in user's own account settings (name, phone country, risk thresholds) and login, each with the buttons the
 * policy allows (admin/pages/account-page.ts): a seller edits both, an agent sees the account only.
 */
export default function AccountPage() {
  const { translateComponent: tc, translateProperty: tp } = useTranslation();
  const { language } = useViewer();
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [params, setParams] = useState<Record<string, unknown>>({});
  useEffect(() => {
    api.getPage({ pageName: 'account' }).then(({ data }) => {
      const a = data as Answer;
      setAnswer(a);
      if (a.account)
        api
          .recordAction({ resourceId: 'accounts', recordId: String(a.account.id), actionName: 'show' })
          .then((r) => setParams((r.data as { record?: { params?: Record<string, unknown> } }).record?.params ?? {}));
    });
  }, []);
  const link = (href: string, label: string, testId: string) => (
    <Button as="a" href={href} mr="default" data-testid={testId}>
      {label}
    </Button>
  );
  return (
    <Box variant="grey" data-testid="account-page">
      <H2 mb="lg">{tc('AccountPage.title')}</H2>
      {answer?.account && (
        <Box style={card} mb="xl">
          <ValueGroup label={tp('name', 'accounts')}>{String(params.name ?? '…')}</ValueGroup>
          <ValueGroup label={tp('phone_country', 'accounts')}>
            <span data-testid="account-country">
              {params.phone_country ? countryName(String(params.phone_country), language) : '…'}
            </span>
          </ValueGroup>
          {RISK_FIELDS.map((f) => (
            <ValueGroup key={f} label={tp(f, 'accounts')}>
              {String(params[f] ?? '…')}
            </ValueGroup>
          ))}
          {link(records('accounts', answer.account.id, 'show'), tc('AccountPage.details'), 'account-show')}
          {answer.account.editable &&
            link(records('accounts', answer.account.id, 'edit'), tc('AccountPage.editAccount'), 'account-edit')}
        </Box>
      )}
      {answer?.profile && (
        <Box style={card}>
          <Text mb="lg">{tc('AccountPage.profileText')}</Text>
          {link(records('users', answer.profile.id, 'show'), tc('AccountPage.profile'), 'profile-show')}
          {answer.profile.editable &&
            link(records('users', answer.profile.id, 'edit'), tc('AccountPage.editProfile'), 'profile-edit')}
        </Box>
      )}
    </Box>
  );
}
