import React from 'react';
import { Box, Button, FormGroup, FormMessage, Label, Text } from '@adminjs/design-system';
import { flat, useTranslation, type EditPropertyProps } from 'adminjs';

/** What the resource passes in `custom` (admin/resources/api-token.resource.ts, src/tokens/scope-presets.ts). */
interface ScopeOptions {
  scopes: string[];
  presets: Record<string, string[]>;
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((v) => b.includes(v));

/**
 * An API key's scopes on its create form: one checkbox per scope, in words ("View leads", from the locale's
 * `labels.scopes.<code>`, as the list and show pages say them), and presets that tick a ready-made set in one click
 * ("Read only", "Integrator", "Everything"). The form saves the scope codes themselves, in the order of the list.
 */
export default function ScopeChecks({ property, record, resource, onChange }: EditPropertyProps) {
  const { tl, translateComponent: t, translateProperty } = useTranslation();
  const { scopes, presets } = property.custom as ScopeOptions;
  const raw = flat.get(record?.params ?? {}, property.path) as unknown;
  const ticked = (Array.isArray(raw) ? raw : []).map(String);
  const set = (next: string[]) =>
    onChange(
      property.path,
      scopes.filter((s) => next.includes(s)),
    );
  const toggle = (scope: string, on: boolean) => set(on ? [...ticked, scope] : ticked.filter((s) => s !== scope));
  const error = record?.errors?.[property.path];

  return (
    <FormGroup error={Boolean(error)} data-testid="scope-checks">
      <Label required>{translateProperty(property.label, resource.id)}</Label>
      <Box flex flexDirection="row" flexWrap="wrap" mb="default" style={{ gap: 8 }}>
        {Object.entries(presets).map(([name, preset]) => (
          <Button
            key={name}
            type="button"
            size="sm"
            variant={sameSet(ticked, preset) ? 'contained' : 'outlined'}
            aria-pressed={sameSet(ticked, preset)}
            data-testid={`scope-preset-${name}`}
            onClick={() => set(preset)}
          >
            {t(`scopeChecks.${name}`)}
          </Button>
        ))}
        <Button type="button" size="sm" variant="text" onClick={() => set([])} data-testid="scope-preset-none">
          {t('scopeChecks.none')}
        </Button>
      </Box>
      <Box style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(14em, 1fr))', gap: '6px 16px' }}>
        {scopes.map((scope) => (
          <label key={scope} style={{ display: 'flex', alignItems: 'center', gap: 6, cursor: 'pointer' }}>
            <input
              type="checkbox"
              name={`scope-${scope}`}
              value={scope}
              checked={ticked.includes(scope)}
              onChange={(e) => toggle(scope, e.target.checked)}
            />
            <span>{tl(`${property.path}.${scope}`, resource.id, { defaultValue: scope })}</span>
          </label>
        ))}
      </Box>
      <Text mt="sm" variant="sm">
        {t('scopeChecks.chosen', { count: ticked.length, total: scopes.length })}
      </Text>
      <FormMessage>{error?.message}</FormMessage>
    </FormGroup>
  );
}
