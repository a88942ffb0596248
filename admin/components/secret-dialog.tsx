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
/**
 * A copy button's action: the text to the clipboard (`copied` then says so), or where the clipboard is refused,
 * `select` selects it on the page for the user to copy.
 */
export function useCopy(value: string, select: () => void): { copied: boolean; copy: () => void } {
  const [copied, setCopied] = useState(false);
  const copy = () => {
    if (!navigator.clipboard) return select();
    navigator.clipboard.writeText(value).then(() => setCopied(true), select);
  };
  return { copied, copy };
}

export function SecretDialog({ secret, onClose }: { secret: ShownOnce; onClose: () => void }) {
  const { translateComponent: tc } = useTranslation();
  const field = useRef<HTMLInputElement>(null);
  const { copied, copy } = useCopy(secret.value, () => field.current?.select());
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
