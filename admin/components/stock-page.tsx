import React, { useCallback, useEffect, useRef, useState } from 'react';
import {
  Badge,
  Box,
  Button,
  H2,
  H4,
  Input,
  Label,
  Select,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Text,
} from '@adminjs/design-system';
import { ApiClient, useTranslation } from 'adminjs';
import { ImportForm } from './import-file.js';
import { cardStyle } from './status-palette.js';
import { useViewer } from './local-text.js';
import { formatNumber } from '../../src/locale-format.js';
import { StockWord } from './lead-parts.js';
import type { LevelView, MovementView, WarehouseView } from '../../src/stock/stock.views.js';

type Level = Omit<LevelView, 'account_id'>;
type Movement = Omit<MovementView, 'account_id'> & { when_text?: string };
type Warehouse = Pick<WarehouseView, 'code' | 'name' | 'is_default'>;
interface Paged<T> {
  data: T[];
  total: number;
  page: number;
  perPage: number;
}
interface Answer {
  levels?: Paged<Level>;
  movements?: Paged<Movement>;
  warehouses?: Warehouse[];
  accounts?: { id: number; name: string }[];
  may_adjust?: boolean;
  done?: { movements?: number; warehouse?: string };
  refusal?: string;
}

const api = new ApiClient();
const card = cardStyle({ maxWidth: 1100 });

/** Previous, "from–to of total", next: the levels' and the ledger's pages. */
function Pager({ shown, page, go }: { shown: Paged<unknown>; page: number; go: (page: number) => void }) {
  const { translateComponent: tc } = useTranslation();
  const { language } = useViewer();
  const n = (v: number) => formatNumber(v, language);
  const last = Math.max(1, Math.ceil(shown.total / shown.perPage));
  const from = shown.data.length ? (page - 1) * shown.perPage + 1 : 0;
  const to = (page - 1) * shown.perPage + shown.data.length;
  return (
    <Box flex mt="lg" style={{ gap: 8, alignItems: 'center' }}>
      <Button size="sm" disabled={page <= 1} onClick={() => go(page - 1)}>
        {tc('stock.previous')}
      </Button>
      <Text>{tc('stock.shown', { from: n(from), to: n(to), total: n(shown.total) })}</Text>
      <Button size="sm" disabled={page >= last} onClick={() => go(page + 1)}>
        {tc('stock.next')}
      </Button>
    </Box>
  );
}

function Levels({ answer, page, go }: { answer: Answer; page: number; go: (page: number) => void }) {
  const { translateComponent: tc } = useTranslation();
  const { language } = useViewer();
  const n = (v: number) => formatNumber(v, language);
  const levels = answer.levels;
  if (!levels) return null;
  return (
    <Box style={card} mb="xl">
      <Table data-testid="stock-levels">
        <TableHead>
          <TableRow>
            {['sku', 'name', 'warehouse', 'onHand', 'reserved', 'available', 'threshold', 'state'].map((k) => (
              <TableCell key={k}>{tc(`stock.columns.${k}`)}</TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {levels.data.map((l) => (
            <TableRow key={`${l.sku} ${l.warehouse}`} data-testid="stock-level">
              <TableCell>{l.sku}</TableCell>
              <TableCell>{l.name}</TableCell>
              <TableCell>{l.warehouse}</TableCell>
              <TableCell>{n(l.on_hand)}</TableCell>
              <TableCell>{n(l.reserved)}</TableCell>
              <TableCell>{n(l.available)}</TableCell>
              <TableCell>{n(l.low_stock_threshold)}</TableCell>
              <TableCell>
                <StockWord available={l.available} low={l.low} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {levels.data.length === 0 && <Text mt="lg">{tc('stock.none')}</Text>}
      <Pager shown={levels} page={page} go={go} />
    </Box>
  );
}

const KINDS = ['receipt', 'adjustment', 'reservation', 'release', 'shipment', 'return'];
interface LedgerFilters {
  kind: string;
  order: string;
}

/** The ledger, newest first, filtered by kind and order reference (and the levels' sku and warehouse), paged. */
function Ledger({
  shown,
  filters,
  set,
  page,
  go,
}: {
  shown: Paged<Movement>;
  filters: LedgerFilters;
  set: (f: LedgerFilters) => void;
  page: number;
  go: (page: number) => void;
}) {
  const { translateComponent: tc } = useTranslation();
  const { language } = useViewer();
  const movements = shown.data;
  const kinds = KINDS.map((k) => ({ value: k, label: tc(`stock.kinds.${k}`) }));
  return (
    <Box style={card} mb="xl">
      <H4>{tc('stock.ledger')}</H4>
      <Box flex mb="lg" style={{ gap: 12, alignItems: 'flex-end', flexWrap: 'wrap' }}>
        <Box style={{ minWidth: 180 }} data-testid="ledger-kind">
          <Label>{tc('stock.columns.kind')}</Label>
          <Select
            isClearable
            options={kinds}
            value={kinds.find((k) => k.value === filters.kind) ?? null}
            onChange={(o: { value: string } | null) => set({ ...filters, kind: o?.value ?? '' })}
          />
        </Box>
        <Box>
          <Label>{tc('stock.columns.order')}</Label>
          <Input
            value={filters.order}
            data-testid="ledger-order"
            onChange={(e: { target: { value: string } }) => set({ ...filters, order: e.target.value })}
          />
        </Box>
      </Box>
      <Table data-testid="stock-ledger">
        <TableHead>
          <TableRow>
            {['when', 'sku', 'warehouse', 'kind', 'quantity', 'order', 'reason', 'by'].map((k) => (
              <TableCell key={k}>{tc(`stock.columns.${k}`)}</TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {movements.map((m) => (
            <TableRow key={m.id}>
              <TableCell>{m.when_text ?? m.created_at}</TableCell>
              <TableCell>{m.sku}</TableCell>
              <TableCell>{m.warehouse}</TableCell>
              <TableCell>{tc(`stock.kinds.${m.kind}`)}</TableCell>
              <TableCell>{formatNumber(m.quantity, language)}</TableCell>
              <TableCell>{m.order_reference ?? '—'}</TableCell>
              <TableCell>{m.reason ?? '—'}</TableCell>
              <TableCell>{m.changed_by}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {movements.length === 0 && <Text mt="lg">{tc('stock.noMovements')}</Text>}
      <Pager shown={shown} page={page} go={go} />
    </Box>
  );
}

function Adjust({ warehouses, send }: { warehouses: Warehouse[]; send: (d: Record<string, unknown>) => void }) {
  const { translateComponent: tc } = useTranslation();
  const [form, setForm] = useState({ sku: '', warehouse: '', kind: 'adjustment', quantity: '', reason: '' });
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  const kinds = ['adjustment', 'receipt'].map((k) => ({ value: k, label: tc(`stock.kinds.${k}`) }));
  const places = warehouses.map((w) => ({ value: w.code, label: `${w.code} · ${w.name}` }));
  return (
    <Box style={card} mb="xl" data-testid="stock-adjust">
      <H4>{tc('stock.adjust')}</H4>
      <Box flex style={{ gap: 12, flexWrap: 'wrap', alignItems: 'flex-end' }}>
        <Box>
          <Label>{tc('stock.columns.sku')}</Label>
          <Input value={form.sku} onChange={set('sku')} data-testid="adjust-sku" />
        </Box>
        <Box style={{ minWidth: 180 }}>
          <Label>{tc('stock.columns.warehouse')}</Label>
          <Select
            value={places.find((p) => p.value === form.warehouse) ?? null}
            options={places}
            onChange={(o: { value: string } | null) => setForm({ ...form, warehouse: o?.value ?? '' })}
          />
        </Box>
        <Box style={{ minWidth: 160 }}>
          <Label>{tc('stock.columns.kind')}</Label>
          <Select
            value={kinds.find((k) => k.value === form.kind)}
            options={kinds}
            onChange={(o: { value: string } | null) => setForm({ ...form, kind: o?.value ?? 'adjustment' })}
          />
        </Box>
        <Box>
          <Label>{tc('stock.columns.quantity')}</Label>
          <Input type="number" value={form.quantity} onChange={set('quantity')} data-testid="adjust-quantity" />
        </Box>
        <Box style={{ flexGrow: 1 }}>
          <Label>{tc('stock.columns.reason')}</Label>
          <Input value={form.reason} onChange={set('reason')} style={{ width: '100%' }} />
        </Box>
        <Button variant="contained" data-testid="adjust-save" onClick={() => send({ op: 'adjust', ...form })}>
          {tc('stock.record')}
        </Button>
      </Box>
    </Box>
  );
}

function Warehouses({
  warehouses,
  mayAdd,
  send,
}: {
  warehouses: Warehouse[];
  mayAdd: boolean;
  send: (d: Record<string, unknown>) => void;
}) {
  const { translateComponent: tc } = useTranslation();
  const [code, setCode] = useState('');
  const [name, setName] = useState('');
  return (
    <Box style={card} mb="xl" data-testid="stock-warehouses">
      <H4>{tc('stock.warehouses')}</H4>
      <Text mb="lg">
        {warehouses.map((w) => `${w.code} · ${w.name}${w.is_default ? ` (${tc('stock.default')})` : ''}`).join('  |  ')}
      </Text>
      {mayAdd && (
        <Box flex style={{ gap: 12, alignItems: 'flex-end' }}>
          <Box>
            <Label>{tc('stock.code')}</Label>
            <Input value={code} onChange={(e: { target: { value: string } }) => setCode(e.target.value)} />
          </Box>
          <Box>
            <Label>{tc('stock.columns.name')}</Label>
            <Input value={name} onChange={(e: { target: { value: string } }) => setName(e.target.value)} />
          </Box>
          <Button onClick={() => send({ op: 'warehouse', code, name })}>{tc('stock.addWarehouse')}</Button>
        </Box>
      )}
    </Box>
  );
}

/** The Stock page (admin/pages/stock-page.ts): levels low first, the ledger, warehouses, and an adjustment form. */
export default function StockPage() {
  const { translateComponent: tc } = useTranslation();
  const [answer, setAnswer] = useState<Answer>({});
  const [filters, setFilters] = useState({ sku: '', warehouse: '', low: false, account_id: '' });
  const [page, setPage] = useState(1);
  const [ledger, setLedger] = useState<LedgerFilters>({ kind: '', order: '' });
  const [ledgerPage, setLedgerPage] = useState(1);
  // AdminJS's translate functions are new on every render: named in load's dependencies they would reload the page
  // after every answer, without end (a CI run caught the form emptied under a test by such a reload)
  const words = useRef(tc);
  words.current = tc;
  // the latest load wins: an answer to a filter typed before the last one is dropped
  const latest = useRef(0);
  const load = useCallback(
    async (data: Record<string, unknown>, method: 'get' | 'post' = 'post') => {
      const asked = ++latest.current;
      try {
        const query = {
          ...filters,
          low: filters.low ? 'true' : '',
          page,
          ledger_kind: ledger.kind,
          ledger_order: ledger.order,
          ledger_page: ledgerPage,
          ...data,
        };
        const answer = (await api.getPage({ pageName: 'stock', method, data: query })).data as Answer;
        if (asked === latest.current) setAnswer(answer);
      } catch {
        if (asked === latest.current) setAnswer({ refusal: words.current('stock.unreachable') });
      }
    },
    [filters, page, ledger, ledgerPage],
  );
  // typed filters (sku, order reference) are asked for once typing pauses, not on every key (each call spends the
  // session's request budget); the first load is at once
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      void load({});
      return undefined;
    }
    const timer = setTimeout(() => void load({}), 300);
    return () => clearTimeout(timer);
  }, [load]);
  const places = (answer.warehouses ?? []).map((w) => ({ value: w.code, label: w.code }));
  return (
    <Box variant="grey" data-testid="stock-page">
      <H2 mb="lg">{tc('stock.title')}</H2>
      {answer.refusal && (
        <Text mb="lg" data-testid="stock-refusal" style={{ color: '#c20012' }}>
          {answer.refusal}
        </Text>
      )}
      {answer.done && <Text mb="lg">{tc('stock.saved')}</Text>}
      <Box flex mb="lg" style={{ gap: 12, alignItems: 'flex-end', flexWrap: 'wrap' }}>
        {answer.accounts && (
          <Box style={{ minWidth: 200 }}>
            <Label>{tc('stock.account')}</Label>
            <Select
              value={
                answer.accounts
                  .map((a) => ({ value: String(a.id), label: a.name }))
                  .find((o) => o.value === filters.account_id) ?? null
              }
              options={answer.accounts.map((a) => ({ value: String(a.id), label: a.name }))}
              onChange={(o: { value: string } | null) => setFilters({ ...filters, account_id: o?.value ?? '' })}
            />
          </Box>
        )}
        <Box>
          <Label>{tc('stock.columns.sku')}</Label>
          <Input
            value={filters.sku}
            onChange={(e: { target: { value: string } }) => setFilters({ ...filters, sku: e.target.value })}
          />
        </Box>
        <Box style={{ minWidth: 160 }}>
          <Label>{tc('stock.columns.warehouse')}</Label>
          <Select
            isClearable
            options={places}
            value={places.find((p) => p.value === filters.warehouse) ?? null}
            onChange={(o: { value: string } | null) => setFilters({ ...filters, warehouse: o?.value ?? '' })}
          />
        </Box>
        <Label style={{ display: 'flex', gap: 6, alignItems: 'center' }}>
          <input
            type="checkbox"
            checked={filters.low}
            onChange={(e) => setFilters({ ...filters, low: e.target.checked })}
            data-testid="stock-low"
          />
          {tc('stock.lowOnly')}
        </Label>
      </Box>
      <Levels answer={answer} page={page} go={setPage} />
      {answer.may_adjust && <Adjust warehouses={answer.warehouses ?? []} send={(d) => void load(d)} />}
      {answer.may_adjust && (
        <Box style={card} mb="xl" data-testid="stock-count">
          <H4>{tc('stock.count')}</H4>
          <ImportForm
            uploadTo="/stock/import"
            accounts={answer.accounts ?? null}
            intro={tc('stock.countIntro')}
            columns={tc('stock.countColumns')}
            createdKey="stock.counted"
          />
        </Box>
      )}
      {answer.movements && (
        <Ledger
          shown={answer.movements}
          filters={ledger}
          set={(f) => {
            setLedger(f);
            setLedgerPage(1);
          }}
          page={ledgerPage}
          go={setLedgerPage}
        />
      )}
      <Warehouses warehouses={answer.warehouses ?? []} mayAdd={!!answer.may_adjust} send={(d) => void load(d)} />
    </Box>
  );
}
