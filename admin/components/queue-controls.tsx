import React from 'react';
import { useTranslation } from 'adminjs';
import { useStatusWord } from './status-badge.js';
import { statusColour } from './status-palette.js';

/** The outcomes, their keys and colours: one click or one key each (the words are the statuses'). */
export const OUTCOMES = [
  { status: 'confirmed', key: 'c' },
  { status: 'no_answer', key: 'n' },
  { status: 'wrong', key: 'w' },
  { status: 'call_later', key: 'l' },
  { status: 'canceled', key: 'x' },
] as const;

const kbd: React.CSSProperties = {
  display: 'inline-block',
  marginInlineStart: 8,
  padding: '0 6px',
  border: '1px solid rgba(255,255,255,0.7)',
  borderRadius: 4,
  fontSize: 12,
};
/** A key's letter (S, C) in monospace; a key named in words ("Espace", "مسافة") in the page's font, which joins Arabic. */
const keyLetter: React.CSSProperties = { ...kbd, fontFamily: 'monospace' };

const button = (colour: string, disabled: boolean): React.CSSProperties => ({
  background: colour,
  color: '#fff',
  border: 0,
  borderRadius: 6,
  padding: '10px 16px',
  fontSize: 15,
  fontWeight: 600,
  cursor: disabled ? 'default' : 'pointer',
  opacity: disabled ? 0.5 : 1,
  whiteSpace: 'nowrap',
});

export function NextButton({ busy, onClick }: { busy: boolean; onClick: () => void }) {
  const { translateComponent } = useTranslation();
  return (
    <button type="button" data-testid="queue-next" disabled={busy} onClick={onClick} style={button('#1d4ed8', busy)}>
      {translateComponent('queue.nextLead')} <span style={kbd}>{translateComponent('queue.space')}</span>
    </button>
  );
}

/** One button per outcome in its palette colour, with its key; and Skip. */
export function OutcomeBar(props: { busy: boolean; onOutcome: (status: string) => void; onSkip: () => void }) {
  const { busy, onOutcome, onSkip } = props;
  const { translateComponent } = useTranslation();
  const word = useStatusWord();
  return (
    <div
      style={{ display: 'flex', flexWrap: 'wrap', gap: 10, alignItems: 'center', marginBottom: 12 }}
      data-testid="queue-outcomes"
    >
      {OUTCOMES.map((o) => (
        <button
          key={o.status}
          type="button"
          data-status={o.status}
          disabled={busy}
          onClick={() => onOutcome(o.status)}
          style={button(statusColour('lead', o.status), busy)}
        >
          {word(o.status)} <span style={keyLetter}>{o.key.toUpperCase()}</span>
        </button>
      ))}
      <button type="button" disabled={busy} onClick={onSkip} style={button('#6b7280', busy)}>
        {translateComponent('queue.skip')} <span style={keyLetter}>S</span>
      </button>
    </div>
  );
}

/** The call-back time (for Call later) and the note kept in the history with the outcome. */
export function WorkFields(props: {
  note: string;
  setNote: (v: string) => void;
  callAt: string;
  setCallAt: (v: string) => void;
  zone: string;
}) {
  const { translateComponent } = useTranslation();
  return (
    <div style={{ display: 'flex', flexWrap: 'wrap', gap: 16, marginBottom: 20 }}>
      <label>
        {translateComponent('queue.callBackField')}{' '}
        <input
          type="datetime-local"
          data-testid="queue-call-at"
          value={props.callAt}
          onChange={(e) => props.setCallAt(e.target.value)}
        />{' '}
        <span data-testid="queue-zone">{props.zone}</span>
      </label>
      <label style={{ flex: '1 1 320px', display: 'flex', gap: 8, alignItems: 'center' }}>
        {translateComponent('queue.note')}
        <input
          type="text"
          maxLength={500}
          value={props.note}
          data-testid="queue-note"
          onChange={(e) => props.setNote(e.target.value)}
          placeholder={translateComponent('queue.notePlaceholder')}
          style={{ flex: 1, padding: 6 }}
        />
      </label>
    </div>
  );
}
