import React, { useEffect, useState } from 'react';
import { ValueGroup } from '@adminjs/design-system';
import { useTranslation, type BasePropertyProps } from 'adminjs';
import { useFigures } from './local-text.js';
import { importProgress, type ImportProgress } from '../../src/transfers/import-progress.js';

/** What the bar draws: the run's status and its progress (importProgress), from the record or GET /imports/{id}. */
export type Progress = ImportProgress & { status: string };

/** The record's columns through the one progress rule, src/transfers/import-progress.ts. */
function fromParams(p: Record<string, unknown>): Progress {
  const total =
    p.rows_total === null || p.rows_total === undefined || p.rows_total === '' ? null : Number(p.rows_total);
  const status = String(p.status ?? '');
  const estimated = p.rows_total_estimated === true || p.rows_total_estimated === 'true';
  const counts = { status, rows_total: total, rows_total_estimated: estimated, rows_read: Number(p.rows_read ?? 0) };
  return { status, ...importProgress(counts) };
}

const BAR_COLOUR: Record<string, string> = { completed: '#2e7d32', failed: '#c62828' };
const LIVE = new Set(['queued', 'running']);

/** Follows a queued or running import every two seconds through its dashboard route, until it ends. */
function useLiveProgress(id: unknown, initial: Progress): Progress {
  const [progress, setProgress] = useState(initial);
  const live = LIVE.has(progress.status);
  useEffect(() => {
    if (!live || !id) return undefined;
    const timer = setInterval(async () => {
      const res = await fetch(`/imports/${encodeURIComponent(String(id))}`, {
        headers: { accept: 'application/json' },
      });
      if (res.ok) setProgress((await res.json()).data as Progress);
    }, 2000);
    return () => clearInterval(timer);
  }, [id, live]);
  return progress;
}

/**
 * A run's progress drawn: a bar, rows done out of the total ("about" while the total is an estimate), a percent. Also
 * the import page's (admin/components/import-file.tsx), which follows the run itself.
 */
export function RunProgress({ progress }: { progress: Progress }) {
  const { translateComponent } = useTranslation();
  const figures = useFigures();
  const { percent } = progress;
  const count = progress.rows_total === null ? '' : figures.number(progress.rows_total);
  const total =
    progress.rows_total === null
      ? translateComponent('progressBar.totalUnknown')
      : progress.rows_total_estimated
        ? translateComponent('progressBar.about', { total: count })
        : count;
  const rows = translateComponent('progressBar.rows', { done: figures.number(progress.rows_done), total });
  const label = `${rows}${percent === null ? '' : ` (${figures.percent(percent)})`}`;
  return (
    <span data-progress={percent ?? ''} title={label} style={{ display: 'inline-block', minWidth: '10em' }}>
      <span
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent ?? undefined}
        style={{ display: 'block', height: 8, borderRadius: 4, background: '#e0e0e0', overflow: 'hidden' }}
      >
        <span
          style={{
            display: 'block',
            height: '100%',
            width: `${percent ?? 0}%`,
            background: BAR_COLOUR[progress.status] ?? '#1565c0',
            transition: 'width 0.5s',
          }}
        />
      </span>
      <span style={{ fontSize: 12, whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }}>{label}</span>
    </span>
  );
}

/** An import run's progress on its list row and show page, live while the run goes on. */
export default function ProgressBar({ property, record, resource, where }: BasePropertyProps) {
  const { translateProperty } = useTranslation();
  const progress = useLiveProgress(record?.id, fromParams(record?.params ?? {}));
  const bar = <RunProgress progress={progress} />;
  if (where !== 'show') return bar;
  return <ValueGroup label={translateProperty(property.label, resource.id)}>{bar}</ValueGroup>;
}
