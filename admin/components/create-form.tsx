import React, { useState } from 'react';
import { useNavigate } from 'react-router';
import { Box, Button, DrawerContent, DrawerFooter, Icon } from '@adminjs/design-system';
import { BasePropertyComponent, useRecord, useTranslation, type ActionProps, type RecordJSON } from 'adminjs';
import { SecretDialog, type ShownOnce } from './secret-dialog.js';

/**
 * The new-record form of a resource whose create answers a secret once (API keys, webhook endpoints, carriers) or
 * starts from the service's defaults (a carrier's timeout): AdminJS's own form (its fields, errors under them, Save),
 * filled with `action.custom.defaults`, and after the save the secret in a dialog that stays until dismissed; the
 * record's page opens then.
 */
export default function CreateForm({ resource, action }: ActionProps) {
  const defaults = (action.custom as { defaults?: Record<string, string> }).defaults ?? {};
  const initial = { params: { ...defaults }, errors: {}, populated: {} } as unknown as RecordJSON;
  const { record, handleChange, submit, loading } = useRecord(initial, resource.id);
  const { translateButton } = useTranslation();
  const navigate = useNavigate();
  const [shown, setShown] = useState<{ secret: ShownOnce; next?: string } | null>(null);
  const open = (url?: string) => url && navigate(`${url}${url.includes('?') ? '&' : '?'}refresh=true`);

  const onSubmit = (event: React.FormEvent) => {
    event.preventDefault();
    submit().then((response) => {
      const data = response.data as { redirectUrl?: string; secret?: ShownOnce };
      if (data.secret) setShown({ secret: data.secret, next: data.redirectUrl });
      else open(data.redirectUrl);
    });
  };

  return (
    <Box as="form" flex flexGrow={1} flexDirection="column" onSubmit={onSubmit} data-testid="create-form">
      <DrawerContent>
        {resource.editProperties.map((property) => (
          <BasePropertyComponent
            key={property.propertyPath}
            where="edit"
            onChange={handleChange}
            property={property}
            resource={resource}
            record={record as RecordJSON}
          />
        ))}
      </DrawerContent>
      <DrawerFooter>
        <Button variant="contained" type="submit" data-testid="button-save" disabled={loading}>
          {loading ? <Icon icon="Loader" spin /> : null}
          {translateButton('save', resource.id)}
        </Button>
      </DrawerFooter>
      {shown && (
        <SecretDialog
          secret={shown.secret}
          onClose={() => {
            setShown(null);
            open(shown.next);
          }}
        />
      )}
    </Box>
  );
}
