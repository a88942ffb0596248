import React, { useCallback, useEffect, useRef, useState } from 'react';
import { Box, H2, Text } from '@adminjs/design-system';
import { ApiClient, useTranslation } from 'adminjs';
import { useStatusWord } from './status-badge.js';
import { statusColour } from './status-palette.js';
import { Banner, CountTiles, LeadCard, type QueueCounts, type QueueLead } from './queue-parts.js';
import { NextButton, OutcomeBar, OUTCOMES, WorkFields } from './queue-controls.js';
import { FALLBACK_ZONE } from '../../src/time-zones.js';

interface Answer {
  counts?: QueueCounts;
  lead?: QueueLead | null;
  done?: { reference: string; status: string; order_reference: string | null };
  accounts?: { id: number; name: string }[];
  /** An admin's: the account whose queue this is; null: none chosen yet (the page asks which). */
  account_id?: number | null;
  refusal?: string;
  /** The account's zone: times are written in it, the call-back time is typed in it (the server reads it so). */
  time_zone?: string;
  /** The picker's first value, a wall time of that zone (an hour ahead), from the server. */
  call_at?: string;
}

const api = new ApiClient();

/** Keys typed into a field are text, not shortcuts. */
const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));

/** The page's state and its one way to the server: a POST to the page's handler through AdminJS's API client. */
function useQueue() {
  // the words of a failed request, read when it fails (a dependency of `send` would ask the server on every render)
  const { translateComponent } = useTranslation();
  const words = useRef(translateComponent);
  words.current = translateComponent;
  const [answer, setAnswer] = useState<Answer>({});
  const [lead, setLead] = useState<QueueLead | null>(null);
  const [asked, setAsked] = useState(false);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState('');
  const [callAt, setCallAt] = useState('');
  const [accountId, setAccountId] = useState('');
  // the account sent with every request: an admin's choice, or the one the server opened the queue on
  const accountRef = useRef('');
  const busyRef = useRef(false);

  const send = useCallback(async (data: Record<string, unknown>) => {
    if (busyRef.current) return; // one request at a time: a double key press sets one outcome
    busyRef.current = true;
    setBusy(true);
    try {
      const scope = accountRef.current ? { account_id: accountRef.current } : {};
      const next = (await api.getPage({ pageName: 'queue', method: 'post', data: { ...scope, ...data } }))
        .data as Answer;
      setAnswer(next);
      if (next.account_id) {
        accountRef.current = String(next.account_id);
        setAccountId(accountRef.current);
      }
      if ('lead' in next) {
        setLead(next.lead ?? null);
        setAsked(true);
        setNote('');
        setCallAt(next.call_at ?? '');
      }
    } catch {
      setAnswer({ refusal: words.current('queue.unreachable') });
    } finally {
      busyRef.current = false;
      setBusy(false);
    }
  }, []);
  const chooseAccount = useCallback(
    (value: string) => {
      accountRef.current = value;
      setAccountId(value);
      void send({ op: 'counts' });
    },
    [send],
  );
  const outcome = useCallback(
    (status: string) => {
      if (!lead) return;
      // a wall time of the account's zone, as typed: the page's handler reads it in that zone
      const action_date = status === 'call_later' && callAt ? callAt : undefined;
      void send({ op: 'outcome', lead_id: lead.id, status, note, action_date });
    },
    [lead, note, callAt, send],
  );
  useEffect(() => {
    void send({ op: 'counts' });
  }, [send]);
  return { answer, lead, asked, busy, note, setNote, callAt, setCallAt, accountId, chooseAccount, send, outcome };
}

/** C, N, W, L, X set the outcome, S skips, Space or Enter takes the next lead when none is held; not while typing. */
function useShortcuts(
  lead: QueueLead | null,
  outcome: (s: string) => void,
  send: (d: Record<string, unknown>) => Promise<void>,
) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
      const key = e.key.toLowerCase();
      if (key === ' ' || key === 'enter') {
        // a focused button or link answers Space and Enter itself
        if (e.target instanceof HTMLButtonElement || e.target instanceof HTMLAnchorElement || lead) return;
        e.preventDefault();
        void send({ op: 'next' });
        return;
      }
      const hit = OUTCOMES.find((o) => o.key === key);
      if (!lead || (!hit && key !== 's')) return;
      e.preventDefault();
      if (hit) outcome(hit.status);
      else void send({ op: 'skip', lead_id: lead.id });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [lead, outcome, send]);
}

function DoneBanner({ done }: { done: NonNullable<Answer['done']> }) {
  const { translateComponent } = useTranslation();
  const word = useStatusWord();
  return (
    <Banner tone="done">
      <bdi dir="ltr">
        <strong style={{ fontFamily: 'monospace' }}>{done.reference}</strong>
      </bdi>{' '}
      {translateComponent('queue.setTo')}{' '}
      <strong style={{ color: statusColour('lead', done.status) }}>{word(done.status)}</strong>
      {done.order_reference && (
        <>
          {' — '}
          <span data-testid="queue-order" data-reference={done.order_reference}>
            {translateComponent('queue.orderCreated', { reference: done.order_reference })}
          </span>
        </>
      )}
    </Banner>
  );
}

/**
 * An admin's account select: the queue opens on the last account they worked; with none yet, the page asks which
 * (their own account has no leads to work) and offers nothing else until one is chosen.
 */
function AccountPicker({
  accounts,
  value,
  set,
}: {
  accounts: NonNullable<Answer['accounts']>;
  value: string;
  set(v: string): void;
}) {
  const { translateComponent } = useTranslation();
  return (
    <Box mb="lg">
      {!value && (
        <Text mb="default" data-testid="queue-ask-account">
          {translateComponent('queue.chooseAccount')}
        </Text>
      )}
      <label style={{ display: 'block' }}>
        {translateComponent('common.account')}{' '}
        <select value={value} onChange={(e) => set(e.target.value)} data-testid="queue-account">
          {!value && (
            <option value="" disabled>
              {translateComponent('queue.accountPlaceholder')}
            </option>
          )}
          {accounts.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
        </select>
      </label>
    </Box>
  );
}

/**
 * The agent work queue: "Next lead" claims one lead of the account (due call-backs first, then the oldest new lead),
 * one click or key sets its outcome and the next lead comes at once. Shortcuts: C confirmed, N no answer, W wrong,
 * L call later (at the chosen time), X canceled, S skip; Space or Enter takes the next lead when none is held.
 * Every write is a POST to the page's handler (admin/pages/queue-page.ts) through AdminJS's own API client, so the
 * session and the same-origin check apply.
 */
export default function QueuePage() {
  const { translateComponent } = useTranslation();
  const q = useQueue();
  const { answer } = q;
  useShortcuts(q.lead, q.outcome, q.send);
  return (
    <Box p="xxl" data-testid="queue-page">
      <H2 mb="lg">{translateComponent('queue.title')}</H2>
      {answer.accounts && <AccountPicker accounts={answer.accounts} value={q.accountId} set={q.chooseAccount} />}
      {answer.account_id === null ? null : <QueueWork q={q} />}
    </Box>
  );
}

/** What waits, what just happened, and the lead held: the queue of the account (an admin's once chosen). */
function QueueWork({ q }: { q: ReturnType<typeof useQueue> }) {
  const { translateComponent } = useTranslation();
  const { answer, lead, busy } = q;
  return (
    <>
      <CountTiles counts={answer.counts ?? null} />
      <div style={{ display: 'grid', gap: 12, margin: '20px 0' }}>
        {answer.done && <DoneBanner done={answer.done} />}
        {answer.refusal && <Banner tone="refused">{answer.refusal}</Banner>}
      </div>
      {!lead && (
        <Box>
          {q.asked && !answer.refusal && <Text mb="lg">{translateComponent('queue.empty')}</Text>}
          <NextButton busy={busy} onClick={() => void q.send({ op: 'next' })} />
        </Box>
      )}
      {lead && (
        <>
          <OutcomeBar busy={busy} onOutcome={q.outcome} onSkip={() => void q.send({ op: 'skip', lead_id: lead.id })} />
          <WorkFields
            note={q.note}
            setNote={q.setNote}
            callAt={q.callAt}
            setCallAt={q.setCallAt}
            zone={answer.time_zone ?? FALLBACK_ZONE}
          />
          <LeadCard lead={lead} zone={answer.time_zone ?? FALLBACK_ZONE} />
        </>
      )}
    </>
  );
}
