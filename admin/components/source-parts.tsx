import React, { useRef } from 'react';
import { Box, Button, FormGroup, FormMessage, Input, Label, Select, Text, ValueGroup } from '@adminjs/design-system';
import { useTranslation, type BasePropertyProps, type RecordJSON } from 'adminjs';
import { Pill } from './status-badge.js';
import { useCopy } from './secret-dialog.js';
import SkuMapping from './sku-mapping.js';
import { EMPTY_MARK, isEmptyValue } from './empty-value.js';

/** sourceHealth's answer (src/sources/source-health.ts), as the resource's after hooks write it. */
interface Health {
  state: 'ok' | 'failing' | 'no_products';
  received_24h: number;
  refused_24h: number;
}

const HEALTH_COLOURS = { ok: '#15803d', failing: '#b91c1c', no_products: '#b45309' } as const;

function parsed(raw: unknown): Health | null {
  try {
    const h = JSON.parse(String(raw)) as Health;
    return h && Object.hasOwn(HEALTH_COLOURS, h.state) ? h : null;
  } catch {
    return null;
  }
}

/** OK / Failing in colour, and the last 24 hours' counts it was judged on. */
function HealthBadge({ raw, resourceId }: { raw: unknown; resourceId: string }) {
  const { translateComponent: tc } = useTranslation();
  const h = parsed(raw);
  if (!h) return <span>—</span>;
  const counts = { received: h.received_24h, refused: h.refused_24h };
  return (
    <span data-testid="source-health" data-health={h.state} style={{ whiteSpace: 'nowrap' }}>
      <Pill colour={HEALTH_COLOURS[h.state]}>{tc(`SourceParts.${h.state}`, resourceId)}</Pill>{' '}
      <span>{tc('SourceParts.counts', resourceId, counts)}</span>
    </span>
  );
}

/** A read-only text (the intake address, the HTML snippet) with a copy button (the secret dialog's pattern). */
function CopyBlock({ text, testId }: { text: string; testId: string }) {
  const { translateComponent: tc } = useTranslation();
  const block = useRef<HTMLPreElement>(null);
  const select = () => {
    const range = document.createRange();
    if (block.current) range.selectNodeContents(block.current);
    window.getSelection()?.removeAllRanges();
    window.getSelection()?.addRange(range);
  };
  const { copied, copy } = useCopy(text, select);
  return (
    <Box>
      <pre ref={block} dir="ltr" data-testid={testId} style={PRE}>
        {text}
      </pre>
      <Button type="button" size="sm" variant="outlined" mt="sm" onClick={copy} data-testid={`${testId}-copy`}>
        {copied ? tc('SecretDialog.copied') : tc('SecretDialog.copy')}
      </Button>
    </Box>
  );
}

/** Wrapped, never wider than the page (a snippet line is long). */
const PRE: React.CSSProperties = {
  margin: 0,
  padding: 12,
  maxWidth: '100%',
  whiteSpace: 'pre-wrap',
  overflowWrap: 'anywhere',
  fontFamily: 'monospace',
  fontSize: 12,
  background: '#f6f7fb',
  borderRadius: 4,
};

/** The kind: chosen on a new source, then only shown (a form never becomes a shop). */
function KindEdit({ property, record, resource, onChange }: BasePropertyProps) {
  const { tl, translateProperty } = useTranslation();
  const value = String(record?.params?.kind ?? '');
  const word = (v: string) => tl(`kind.${v}`, resource.id, { defaultValue: v });
  const options = (property.availableValues ?? []).map((v) => ({
    value: String(v.value),
    label: word(String(v.value)),
  }));
  const error = record?.errors?.kind;
  return (
    <FormGroup error={!!error}>
      <Label required>{translateProperty(property.label, resource.id)}</Label>
      {record?.id ? (
        <Text py="sm">{word(value)}</Text>
      ) : (
        <Select
          value={options.find((o) => o.value === value)}
          options={options}
          onChange={(s: { value: string } | null) => onChange?.('kind', s?.value ?? '')}
        />
      )}
      <FormMessage>{error?.message}</FormMessage>
    </FormGroup>
  );
}

/** The shop's signing secret: write-only (never shown back), for a shop only; empty keeps the one set. */
function SecretEdit({ property, record, resource, onChange }: BasePropertyProps) {
  const { translateProperty, translateMessage: tm, translateComponent: tc } = useTranslation();
  const params = (record as RecordJSON).params;
  if (String(params.kind ?? 'form') === 'form') return null;
  const error = record?.errors?.signing_secret;
  const state = params.signing_secret_state === 'set' ? 'secretSet' : 'secretNotSet';
  return (
    <FormGroup error={!!error}>
      <Label>{translateProperty(property.label, resource.id)}</Label>
      <Input
        type="password"
        autoComplete="new-password"
        width={1}
        value={String(params.signing_secret ?? '')}
        onChange={(e: React.ChangeEvent<HTMLInputElement>) => onChange?.('signing_secret', e.target.value)}
      />
      <FormMessage>{error?.message}</FormMessage>
      <Text variant="sm" mt="sm">
        {tm('descriptions.sourceSecret', resource.id)} {record?.id ? tc(`SourceParts.${state}`, resource.id) : ''}
      </Text>
    </FormGroup>
  );
}

/** A part of a lead source's show page, by property (admin/resources/lead-source.resource.ts). */
function ShownPart({ path, value, resourceId }: { path: string; value: string; resourceId: string }) {
  const { translateComponent: tc } = useTranslation();
  if (path === 'health') return <HealthBadge raw={value} resourceId={resourceId} />;
  if (path === 'intake_url' || path === 'snippet') return <CopyBlock text={value} testId={`source-${path}`} />;
  if (path === 'intake_log')
    return (
      <a href={value} data-testid="source-intake-log">
        {tc('SourceParts.openLog', resourceId)}
      </a>
    );
  if (path === 'pricing')
    return (
      <Text data-testid="source-pricing" data-pricing={value} color={value === 'no_products' ? '#b45309' : undefined}>
        {tc(value === 'no_products' ? 'SourceParts.noProductsLine' : 'SourceParts.pricedLine', resourceId)}
      </Text>
    );
  if (path === 'products_text' || path === 'mapping_text' || path === 'payload_text')
    // no default products, no mapping, an empty payload: a dash, not `[]` or `{}`
    return isEmptyValue(value) ? (
      <span data-testid={`empty-${path}`}>{EMPTY_MARK}</span>
    ) : (
      <pre dir="ltr" style={PRE}>
        {value}
      </pre>
    );
  return <span>{value || EMPTY_MARK}</span>;
}

/**
 * Lead sources', intake entries' and webhook deliveries' parts: the kind in words, the health badge, the copy blocks, JSON texts read left to
 * right in Arabic too, and the form's create-only kind and write-only secret.
 */
export default function SourceParts(props: BasePropertyProps) {
  const { translateProperty, tl } = useTranslation();
  const { property, record, resource, where } = props;
  if (where === 'edit' && property.path === 'product_mapping') return <SkuMapping {...props} />;
  if (where === 'edit') return property.path === 'kind' ? <KindEdit {...props} /> : <SecretEdit {...props} />;
  const value = String(record?.params?.[property.path] ?? '');
  if (where === 'list' && property.path === 'kind') return <span>{tl(`kind.${value}`, resource.id)}</span>;
  if (where === 'list') return <HealthBadge raw={value} resourceId={resource.id} />;
  // a shop has no snippet and says nothing of pricing: no empty block
  if ((property.path === 'snippet' || property.path === 'pricing') && !value) return null;
  return (
    <ValueGroup label={translateProperty(property.label, resource.id)}>
      <ShownPart path={property.path} value={value} resourceId={resource.id} />
    </ValueGroup>
  );
}
