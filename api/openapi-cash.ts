import {
  LINES_MAX,
  OUTCOMES,
  outstandingQuerySchema,
  remittanceBodySchema,
  remittancesQuerySchema,
} from '../src/cash/cash.schemas.js';
import { AGES } from '../src/cash/cash.views.js';
import { EXAMPLE_REFS, page, type Example } from './openapi-examples.js';
import type { Operation } from './openapi-operation.js';
import { closed, count, envelope, int, nullable, str, time, withMessage } from './openapi-schemas.js';

const SCOPE = 'MANAGE CASH';
const amount = { type: 'number', minimum: 0, description: 'In the account\u2019s currency, two decimals at most' };
const outcomes = closed(Object.fromEntries(OUTCOMES.map((o) => [o, count])));
const remittanceFields = {
  id: int,
  account_id: int,
  shipping_company: { type: 'string', description: 'The carrier\u2019s code' },
  statement_number: str,
  paid_at: { type: 'string', format: 'date' },
  line_count: count,
  amount,
  fees: amount,
  outcomes,
  changed_by: str,
  created_at: time,
};
const remittance = { ...closed(remittanceFields), description: 'A carrier\u2019s remittance statement' };
const line = closed({
  line: int,
  reference: nullable('string'),
  tracking_number: nullable('string'),
  amount,
  fees: nullable('number'),
  expected: { ...nullable('number'), description: 'What the order should have paid: cod_amount − fees' },
  outcome: { type: 'string', enum: [...OUTCOMES] },
  order_reference: nullable('string'),
});
const remittanceWithLines = closed({ ...remittanceFields, lines: { type: 'array', items: line } });
const pair = closed({ orders: count, amount });
const outstandingRow = closed({
  shipping_company: { ...closed({ code: str, name: str }), type: ['object', 'null'] },
  to_collect: pair,
  overdue: pair,
  disputed: pair,
  ages: closed(Object.fromEntries(AGES.map((a) => [a.key, pair]))),
});

/** Cash (docs/cash.md): carriers' remittance statements and outstanding cash. */
export const CASH_OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/remittances',
    summary: `Record a carrier\u2019s remittance statement (1 to ${LINES_MAX} lines, all or none)`,
    description:
      'Each line names one of the account\u2019s orders of that carrier by `reference` or `tracking_number` and ' +
      'gets an outcome: `matched` (the amount is the expected net), `short`, `over` (the order is disputed), ' +
      '`unknown_order`, `not_delivered` or `already_remitted`. The same `statement_number` of the same carrier ' +
      'again changes nothing and answers the first result, the same 201.',
    scope: SCOPE,
    body: remittanceBodySchema,
    success: {
      status: 201,
      description: 'Recorded (or recorded before)',
      schema: withMessage({ data: remittanceWithLines }),
    },
  },
  {
    method: 'get',
    path: '/remittances',
    summary: 'The account\u2019s remittance statements, newest first',
    scope: SCOPE,
    query: remittancesQuerySchema,
    success: { status: 200, description: 'A page of statements', schema: envelope(remittance) },
  },
  {
    method: 'get',
    path: '/remittances/{id}',
    summary: 'One statement with its lines and their outcomes',
    scope: SCOPE,
    params: ['id'],
    success: { status: 200, description: 'The statement', schema: closed({ data: remittanceWithLines }) },
    errors: { 404: 'Unknown statement (another account\u2019s is unknown too)' },
  },
  {
    method: 'get',
    path: '/cash/outstanding',
    summary: 'Cash to collect per carrier, by age since delivery, overdue and disputed',
    scope: SCOPE,
    query: outstandingQuerySchema,
    success: {
      status: 200,
      description: 'Outstanding cash',
      schema: closed({ currency: nullable('string'), data: { type: 'array', items: outstandingRow } }),
    },
  },
];

const st = {
  id: 7,
  account_id: 3,
  shipping_company: 'fastship',
  statement_number: 'FS-2026-11-28',
  paid_at: '2026-11-28',
  line_count: 1,
  amount: 215,
  fees: 35,
  outcomes: { matched: 1, short: 0, over: 0, unknown_order: 0, not_delivered: 0, already_remitted: 0 },
  changed_by: 'Sara Seller',
  created_at: EXAMPLE_REFS.AT,
};
const ln = {
  line: 1,
  reference: EXAMPLE_REFS.ORDER,
  tracking_number: null,
  amount: 215,
  fees: 35,
  expected: 215,
  outcome: 'matched',
  order_reference: EXAMPLE_REFS.ORDER,
};
const p = (orders: number, amount: number) => ({ orders, amount });

export const CASH_EXAMPLES: Record<string, Example> = {
  'post /remittances': {
    body: {
      shipping_company: 'fastship',
      statement_number: 'FS-2026-11-28',
      paid_at: '2026-11-28',
      lines: [{ reference: EXAMPLE_REFS.ORDER, amount: 215, fees: 35 }],
    },
    response: { message: 'Statement FS-2026-11-28 recorded.', data: { ...st, lines: [ln] } },
  },
  'get /remittances': { response: page('/remittances', [st]) },
  'get /remittances/{id}': { params: { id: '7' }, response: { data: { ...st, lines: [ln] } } },
  'get /cash/outstanding': {
    response: {
      currency: 'MAD',
      data: [
        {
          shipping_company: { code: 'fastship', name: 'Fast Ship' },
          to_collect: p(12, 2580),
          overdue: p(2, 430),
          disputed: p(1, 190),
          ages: { '0_7': p(8, 1720), '8_14': p(2, 430), '15_30': p(2, 430), over_30: p(0, 0) },
        },
      ],
    },
  },
};
