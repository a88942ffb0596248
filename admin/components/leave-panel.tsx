import React, { useEffect } from 'react';
import { Box, Button, H3, Text } from '@adminjs/design-system';
import { useTranslation, type ActionProps } from 'adminjs';

/**
 * An action that opens a page or a file the dashboard routes serve (the upload page, an export, an error report).
 * AdminJS follows an action's redirect inside its own router, which cannot reach those; this loads the address for
 * real, once. `action.custom.href` names it, `{id}` standing for the record's id (nothing happens before the record
 * is there).
 */
/** The last address loaded: AdminJS may mount the action twice while the record loads, which must not load it twice. */
let last: { href: string; at: number } | null = null;

export default function LeavePanel({ action, record, resource }: ActionProps) {
  const { translateComponent, translateLabel } = useTranslation();
  const template = String((action.custom as { href?: string }).href ?? '/');
  const href =
    template.includes('{id}') && !record?.id ? null : template.replace('{id}', encodeURIComponent(String(record?.id)));
  useEffect(() => {
    if (!href || (last?.href === href && Date.now() - last.at < 3000)) return;
    last = { href, at: Date.now() };
    window.location.assign(href);
  }, [href]);
  return (
    <Box variant="container" p="xl">
      <H3>{action.label}</H3>
      <Text mb="lg">
        {href ? (
          <>
            {translateComponent('leavePanel.opening')}{' '}
            <bdi dir="ltr">
              <a href={href}>{href}</a>
            </bdi>
            …
          </>
        ) : (
          translateComponent('common.loading')
        )}
      </Text>
      <Button as="a" href={`/admin/resources/${resource.id}`}>
        {translateComponent('leavePanel.back', { name: translateLabel(resource.id, { defaultValue: resource.name }) })}
      </Button>
    </Box>
  );
}
