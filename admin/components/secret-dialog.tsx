import React, { useRef, useState } from 'react';
import { Box, Button, Input, Modal, Text } from '@adminjs/design-system';
import { useTranslation } from 'adminjs';

/** A secret the server answers once (admin/resources/panel-kit.ts ShownOnce). */
export interface ShownOnce {
  kind: 'apiKey' | 'webhookSecret' | 'hmacSecret';
  value: string;
}

/**
 * The secret a create or a rotation answered, in a dialog that stays until it is dismissed (a notice vanished after
 * 12 s), with a copy button and the once-only warning. The secret is only ever in this dialog: never in an address,
 * a notice or a log. Where the clipboard is refused, the button selects the text for the user to copy.
 */
export function SecretDialog({ secret, onClose }: { secret: ShownOnce; onClose: () => void }) {
  const { translateComponent: tc } = useTranslation();
  const [copied, setCopied] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  const copy = () => {
    const select = () => field.current?.select();
    if (!navigator.clipboard) return select();
    navigator.clipboard.writeText(secret.value).then(() => setCopied(true), select);
  };
  return (
    <Modal title={tc(`SecretDialog.${secret.kind}`)} variant="primary">
      <Box data-testid="secret-dialog">
        <Text mb="lg" data-testid="secret-warning">
          {tc('SecretDialog.warning')}
        </Text>
        <Input
          ref={field}
          readOnly
          width={1}
          value={secret.value}
          data-testid="secret-value"
          onFocus={(e: React.FocusEvent<HTMLInputElement>) => e.currentTarget.select()}
          style={{ fontFamily: 'monospace' }}
        />
        <Box flex mt="lg" style={{ gap: 12, justifyContent: 'flex-end' }}>
          <Button type="button" variant="outlined" onClick={copy} data-testid="secret-copy">
            {copied ? tc('SecretDialog.copied') : tc('SecretDialog.copy')}
          </Button>
          <Button type="button" variant="contained" onClick={onClose} data-testid="secret-close">
            {tc('SecretDialog.close')}
          </Button>
        </Box>
      </Box>
    </Modal>
  );
}
