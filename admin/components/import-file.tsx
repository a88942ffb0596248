import React, { useEffect, useState } from 'react';
import { Box, Button, Label, Text } from '@adminjs/design-system';
import { ApiClient, useTranslation, type ActionProps } from 'adminjs';
import { useFigures } from './local-text.js';
import { RunProgress, type Progress } from './progress-bar.js';

const api = new ApiClient();
/** How often a queued or running run is asked for again. */
const POLL_MS = 1000;
const LIVE = new Set(['queued', 'running']);
/** The import service's REPORT_ROWS: the page shows this many refusals, the CSV report has them all. */
const SHOWN = 100;

interface Run extends Progress {
  id: number;
  file_name: string;
  rows_written: number;
  rows_failed: number;
  error: string | null;
}
interface Refusal {
  row: number;
  column: string;
  message: string;
}
interface Report {
  run: Run;
  refused: Refusal[];
}

const field: React.CSSProperties = { display: 'block', marginBottom: 16, minWidth: 260, height: 36 };
const cell: React.CSSProperties = { padding: '6px 10px', borderBottom: '1px solid #e0e0e0', textAlign: 'start' };
const colours: Record<string, string> = { completed: '#15803d', failed: '#b91c1c' };

/**
 * Uploads through a dashboard import route (POST /leads/import, /stock/import: session, CSRF token, role, the
 * service's checks); answers the run's id, or the refusal's words (the field's first error, else the message).
 */
async function upload(to: string, form: FormData): Promise<{ id?: number; message?: string }> {
  const { token } = await (await fetch('/csrf-token', { headers: { accept: 'application/json' } })).json();
  const res = await fetch(to, {
    method: 'POST',
    body: form,
    headers: { accept: 'application/json', 'x-csrf-token': token },
  });
  const json = await res.json().catch(() => ({}));
  if (res.status === 202) return { id: Number(json.id) };
  const errors = Object.values((json.errors ?? {}) as Record<string, string[]>);
  return { message: errors[0]?.[0] ?? json.message ?? String(res.status) };
}

/** The run's state and report, asked again every second while it is queued or running (the importReport action). */
function useReport(id: number | null): Report | null {
  const [report, setReport] = useState<Report | null>(null);
  useEffect(() => {
    setReport(null);
    if (id === null) return undefined;
    let stopped = false;
    let failures = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const names = { resourceId: 'import_runs', recordId: String(id), actionName: 'importReport' };
        const next = (await api.recordAction(names)).data as unknown as Report;
        if (stopped) return;
        setReport(next);
        if (LIVE.has(next.run.status)) timer = setTimeout(poll, POLL_MS);
      } catch (err) {
        // a refusal (signed out, the run gone, no right to it) ends the polling; a lost connection is tried again,
        // a few times
        const status = (err as { response?: { status?: number } }).response?.status ?? 0;
        failures += 1;
        if (!stopped && status < 400 && failures < 5) timer = setTimeout(poll, POLL_MS * 3);
      }
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [id]);
  return report;
}

function Refusals({ report }: { report: Report }) {
  const { translateComponent: t } = useTranslation();
  const figures = useFigures();
  const { run, refused } = report;
  if (!refused.length) return null;
  return (
    <Box mb="lg">
      <table data-testid="import-refusals" style={{ borderCollapse: 'collapse', marginBottom: 8 }}>
        <thead>
          <tr>
            <th style={cell}>{t('importFile.line')}</th>
            <th style={cell}>{t('importFile.column')}</th>
            <th style={cell}>{t('importFile.reason')}</th>
          </tr>
        </thead>
        <tbody>
          {refused.map((r) => (
            <tr key={`${r.row}:${r.column}`} data-testid="import-refusal" data-row={r.row}>
              <td style={cell}>{figures.number(r.row)}</td>
              <td style={cell}>
                <bdi dir="ltr">{r.column}</bdi>
              </td>
              <td style={cell}>{r.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {refused.length >= SHOWN && <Text mb="sm">{t('importFile.firstOnly', { shown: figures.number(SHOWN) })}</Text>}
      <a href={`/imports/${run.id}/report`}>{t('importFile.fullReport')}</a>
    </Box>
  );
}

function RunReport({ report, createdKey }: { report: Report; createdKey: string }) {
  const { translateComponent: t } = useTranslation();
  const figures = useFigures();
  const { run } = report;
  const ended = !LIVE.has(run.status);
  return (
    <Box mb="xl" data-testid="import-report" data-status={run.status}>
      <Text mb="md" style={{ fontWeight: 600, color: colours[run.status] }} data-testid="import-status">
        {t(`importFile.${run.status}`, { file: run.file_name })}
      </Text>
      <Box mb="md">
        <RunProgress progress={run} />
      </Box>
      {run.status === 'failed' && (
        <Text mb="md" data-testid="import-failed" style={{ color: colours.failed }}>
          {t('importFile.why', { error: run.error ?? '—' })}
        </Text>
      )}
      {ended && (
        <Box mb="md">
          <Text data-testid="import-created">{t(createdKey, { n: figures.number(run.rows_written) })}</Text>
          <Text data-testid="import-refused">{t('importFile.refused', { n: figures.number(run.rows_failed) })}</Text>
        </Box>
      )}
      {ended && <Refusals report={report} />}
      <a href={`/admin/resources/import_runs/records/${run.id}/show`} data-testid="import-run-link">
        {t('importFile.openRun', { id: figures.number(run.id) })}
      </a>
    </Box>
  );
}

/** What an import form is told: where it uploads, the accounts an admin chooses from, its words. */
export interface ImportFormProps {
  uploadTo: string;
  accounts: { id: number; name: string }[] | null;
  intro: string;
  columns: string;
  /** The key of "rows written: N" in the run's report. */
  createdKey?: string;
}

/**
 * An import inside the panel: choose a file (an admin also the account), upload it through the dashboard route, then
 * follow the run's progress live and read its report: rows written, rows refused with each refusal's line and
 * reason, why a failed run failed, and a link to the run's record. The leads' import and the stock count use it.
 */
export function ImportForm({ uploadTo, accounts, intro, columns, createdKey = 'importFile.created' }: ImportFormProps) {
  const { translateComponent: t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState('');
  const [runId, setRunId] = useState<number | null>(null);
  const report = useReport(runId);

  const submit = async (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setBusy(true);
    setRefusal('');
    try {
      const answer = await upload(uploadTo, new FormData(e.currentTarget));
      if (answer.id) setRunId(answer.id);
      else setRefusal(answer.message || t('importFile.uploadFailed'));
    } catch {
      setRefusal(t('importFile.uploadFailed'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Box data-testid="import-form">
      <Text mb="sm">{intro}</Text>
      <Text mb="lg">{columns}</Text>
      {runId === null ? (
        <form onSubmit={submit}>
          {accounts && (
            <>
              <Label htmlFor="account_id">{t('importFile.account')}</Label>
              <select id="account_id" name="account_id" required style={field} defaultValue="">
                <option value="">{t('importFile.chooseAccount')}</option>
                {accounts.map((a) => (
                  <option key={a.id} value={a.id}>{`${a.name} (#${a.id})`}</option>
                ))}
              </select>
            </>
          )}
          <Label htmlFor="file">{t('importFile.file')}</Label>
          <input id="file" name="file" type="file" accept=".csv,.xlsx" required style={field} />
          {refusal && (
            <Text mb="md" data-testid="import-upload-refused" style={{ color: colours.failed }}>
              {refusal}
            </Text>
          )}
          <Button type="submit" variant="contained" disabled={busy}>
            {busy ? t('importFile.uploading') : t('importFile.submit')}
          </Button>
        </form>
      ) : (
        <>
          {report ? (
            <RunReport report={report} createdKey={createdKey} />
          ) : (
            <Text mb="lg">{t('importFile.uploaded')}</Text>
          )}
          <Button type="button" onClick={() => setRunId(null)}>
            {t('importFile.another')}
          </Button>
        </>
      )}
    </Box>
  );
}

/** The leads' "Import file" page (admin/resources/import-page.ts): the import form, with an admin's accounts. */
export default function ImportFile({ resource, action }: ActionProps) {
  const { translateComponent: t } = useTranslation();
  const [accounts, setAccounts] = useState<{ id: number; name: string }[] | null>(null);
  useEffect(() => {
    api
      .resourceAction({ resourceId: resource.id, actionName: action.name })
      .then(({ data }) => setAccounts((data as { accounts?: { id: number; name: string }[] }).accounts ?? null))
      .catch(() => setAccounts(null));
  }, [resource.id, action.name]);
  return (
    <Box variant="container" p="xl" data-testid="import-page">
      <ImportForm
        uploadTo="/leads/import"
        accounts={accounts}
        intro={t('importFile.intro')}
        columns={t('importFile.columns')}
      />
    </Box>
  );
}
