/** What an import run's progress is computed from (its columns). */
export interface RunCounts {
  status: string;
  rows_total: number | null;
  rows_total_estimated: boolean;
  rows_read: number;
}

/** The progress every reader of a run shows: GET /imports, GET /imports/{id}, the panel's bar. */
export interface ImportProgress {
  rows_total: number | null;
  rows_total_estimated: boolean;
  rows_done: number;
  percent: number | null;
}

/**
 * What the run's readers show of its progress: rows done as batches commit, out of the total, and a percent. A total
 * the rows done have passed (a workbook whose dimension said too little) was wrong: the rows done stand for it, as an
 * estimate, until the run ends. Pure and free of Node: the panel's progress bar (admin/components/progress-bar.tsx)
 * draws the same figure in the browser.
 */
export function importProgress(r: RunCounts): ImportProgress {
  const passed = r.rows_total !== null && r.rows_read > r.rows_total && r.status !== 'completed';
  const total = passed ? r.rows_read : r.rows_total;
  let percent: number | null = null;
  if (r.status === 'completed') percent = 100;
  else if (total) percent = Math.min(r.status === 'running' ? 99 : 100, Math.floor((r.rows_read * 100) / total));
  else if (total === 0) percent = 0;
  return { rows_total: total, rows_total_estimated: r.rows_total_estimated || passed, rows_done: r.rows_read, percent };
}
