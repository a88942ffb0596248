import React, { useState } from 'react';
import { Box, Button, Text } from '@adminjs/design-system';
import { ApiClient, useActionResponseHandler, useTranslation, type ActionProps } from 'adminjs';
import { SecretDialog, type ShownOnce } from './secret-dialog.js';

const api = new ApiClient();

/**
 * The page of a state-changing custom action (push, export): it says what will happen and acts only when the button
 * is pressed, with a POST. Loading the action's address (a link from another site, a reload) does nothing, and the
 * server acts on POST only. A resource action sends the list's filters from the address along. A secret the answer
 * carries (a rotated signing secret) is shown in a dialog first; the answer is followed once it is dismissed.
 */
export default function ConfirmAction({ action, resource, record, records }: ActionProps) {
  const handleResponse = useActionResponseHandler();
  const { translateComponent, translateMessage } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [shown, setShown] = useState<{ secret: ShownOnce; answer: Parameters<typeof handleResponse>[0] } | null>(null);
  // the question is a key of `messages` (its placeholders from custom.confirmParams), in the reader's language
  const custom = action.custom as { confirm?: string; confirmParams?: Record<string, unknown> };
  const question = custom.confirm
    ? translateMessage(custom.confirm, resource.id, custom.confirmParams ?? {})
    : (action.guard ?? translateComponent('confirmAction.ask'));
  const count = records?.length ?? 0;

  const run = () => {
    setBusy(true);
    const data = new FormData();
    const names = { resourceId: resource.id, actionName: action.name, data };
    const call =
      action.actionType === 'bulk'
        ? api.bulkAction({ ...names, recordIds: (records ?? []).map((r) => r.id) })
        : action.actionType === 'record'
          ? api.recordAction({ ...names, recordId: String(record?.id) })
          : api.resourceAction({ ...names, params: Object.fromEntries(new URLSearchParams(window.location.search)) });
    call
      .then((answer) => {
        const secret = (answer.data as { secret?: ShownOnce }).secret;
        if (secret) setShown({ secret, answer });
        else handleResponse(answer);
      })
      .finally(() => setBusy(false));
  };

  return (
    <Box variant="container" p="xl">
      <Text mb="lg">{question}</Text>
      {action.actionType === 'bulk' && <Text mb="lg">{translateComponent('confirmAction.selected', { count })}</Text>}
      <Button variant="contained" onClick={run} disabled={busy || (action.actionType === 'bulk' && !count)}>
        {busy ? translateComponent('confirmAction.working') : translateComponent('confirmAction.confirm')}
      </Button>
      {shown && (
        <SecretDialog
          secret={shown.secret}
          onClose={() => {
            setShown(null);
            handleResponse(shown.answer);
          }}
        />
      )}
    </Box>
  );
}
