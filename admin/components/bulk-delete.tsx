import React, { useState } from 'react';
import { Box, Button, MessageBox, Table, TableBody, TableCell, TableRow } from '@adminjs/design-system';
import { ApiClient, BasePropertyComponent, useActionResponseHandler, useTranslation, type ActionProps } from 'adminjs';

const api = new ApiClient();

/**
 * The bulk delete drawer: the selected records and a Confirm button (a POST). A refused delete removes none of them
 * (services delete all or nothing), so after a refusal the drawer says that nothing was removed and why, instead of
 * AdminJS's "will be removed", and offers no second Confirm.
 */
export default function BulkDelete({ action, resource, records }: ActionProps) {
  const handleResponse = useActionResponseHandler();
  const { translateComponent, translateButton, translateMessage } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const count = records?.length ?? 0;

  const run = () => {
    setBusy(true);
    api
      .bulkAction({
        resourceId: resource.id,
        actionName: action.name,
        recordIds: (records ?? []).map((r) => r.id),
        method: 'post',
      })
      .then((response) => {
        const refused = (response.data as { refused?: string }).refused;
        if (refused) setRefusal(refused);
        handleResponse(response);
      })
      .catch(() => setRefusal(translateMessage('bulkDeleteError', resource.id)))
      .finally(() => setBusy(false));
  };

  const message = refusal
    ? `${translateComponent('bulkDelete.nothingRemoved', resource.id)} ${refusal}`
    : translateComponent('bulkDelete.willBeRemoved', resource.id, { count });
  return (
    <Box variant="container" p="xl" data-testid="bulk-delete">
      <MessageBox mb="xl" variant={refusal ? 'info' : 'danger'} message={message} data-testid="bulk-delete-message" />
      <Table mb="xl">
        <TableBody>
          {(records ?? []).map((record) => (
            <TableRow key={record.id}>
              <TableCell>
                <BasePropertyComponent
                  where="list"
                  property={resource.titleProperty}
                  resource={resource}
                  record={record}
                />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {!refusal && (
        <Button variant="contained" onClick={run} disabled={busy || !count}>
          {translateButton('confirmRemovalMany', resource.id, { count })}
        </Button>
      )}
    </Box>
  );
}
