import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { getCtx } from '../hooks.js';
import { makeFilledAccount, type FilledAccount } from '../factories.js';
import { startTestServer } from '../helpers.js';
import { login, type SessionClient } from '../session.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
type Json = Record<string, unknown>;

/** Every row of account B, in every table that has an account_id (and B's account row): what must never change. */
async function snapshotOf(accountId: number): Promise<string> {
  const { sequelize } = getCtx().db;
  const tables = await sequelize.query<{ t: string }>(
    `SELECT table_name AS t FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'account_id' ORDER BY 1`,
    { type: QueryTypes.SELECT },
  );
  const parts = [
    JSON.stringify(
      await sequelize.query('SELECT * FROM accounts WHERE id = :id', {
        replacements: { id: accountId },
        type: QueryTypes.SELECT,
      }),
    ),
  ];
  for (const { t } of tables) {
    // row_counts holds appended deltas that a fold may merge: what must not change is their sum per count
    const select =
      t === 'row_counts'
        ? 'SELECT list, status, sum(n)::int AS n FROM row_counts x WHERE account_id = :id GROUP BY 1, 2'
        : `SELECT * FROM "${t}" x WHERE account_id = :id`;
    const rows = await sequelize.query(`SELECT * FROM (${select}) x ORDER BY x::text`, {
      replacements: { id: accountId },
      type: QueryTypes.SELECT,
    });
    parts.push(`${t}: ${JSON.stringify(rows)}`);
  }
  return parts.join('\n');
}

/** Text values of B's rows that A's rows do not share: one of them in an answer means B's data leaked. */
async function markersOf(b: number, a: number): Promise<string[]> {
  const { sequelize } = getCtx().db;
  // Every JSON string of the snapshot, read token by token (a pattern that skips short strings would lose count of
  // the quotes and take the text between two strings for one).
  const snapshot = async (id: number) =>
    ((await snapshotOf(id)).match(/"(?:[^"\\]|\\.)*"/g) ?? []).filter((m) => m.length >= 12);
  const own = new Set(await snapshot(a));
  return [
    ...new Set(
      (await snapshot(b))
        .filter((m) => !own.has(m) && !/^"\d{4}-\d\d-\d\dT/.test(m))
        .map((m) => JSON.parse(m) as string),
    ),
  ].concat(
    (
      await sequelize.query<{ name: string }>('SELECT name FROM accounts WHERE id = :b', {
        replacements: { b },
        type: QueryTypes.SELECT,
      })
    )[0].name,
  );
}

/** Every record an AdminJS answer carries (record, records, and what they populate). */
function recordsIn(body: unknown): { params: Json; populated?: Record<string, { params: Json } | null> }[] {
  if (!body || typeof body !== 'object') return [];
  const b = body as { record?: unknown; records?: unknown[] };
  const own = [...(b.record ? [b.record] : []), ...(Array.isArray(b.records) ? b.records : [])] as {
    params: Json;
    populated?: Record<string, { params: Json } | null>;
  }[];
  return own.flatMap((r) => [
    r,
    ...Object.values(r.populated ?? {}).filter((p): p is { params: Json } => !!p && typeof p === 'object'),
  ]);
}

/**
 * Generated from the panel's own resource, action and page lists: for a seller and an agent of account A, every action
 * of every resource and every custom page (work queue, KPI) is called with GET and POST, with tampered queries
 * (filters in every shape, sort and search on every column, B's values as filters, foreign and mixed ids, B's account
 * and leads posted to the pages). Account B has rows in every table. Afterwards: no
 * answer carries a record of B, a marker of B's data or a secret, nothing answered 5xx, and B's rows are unchanged.
 */
describe("admin panel tenancy (generated from the panel's resources and actions)", function () {
  this.timeout(600_000);
  let web: Server;
  let a: FilledAccount;
  let b: FilledAccount;

  before(async () => {
    web = await startTestServer();
    a = await makeFilledAccount(getCtx(), 'own');
    b = await makeFilledAccount(getCtx(), 'foreign');
  });
  after(async () => {
    await web.close();
  });

  async function attack(client: SessionClient, label: string): Promise<{ requests: number; problems: string[] }> {
    const ctx = getCtx();
    await client.json('GET', '/admin/api/resources/leads/actions/list');
    const { builtPanel } = await import('../../admin/admin.js');
    const admin = builtPanel()!;
    const markers = await markersOf(b.id, a.id);
    const secrets = [...a.secrets, ...b.secrets];
    const problems: string[] = [];
    let requests = 0;

    const call = async (method: 'GET' | 'POST', url: string, body?: Json) => {
      requests += 1;
      const res = await client.fetch(url, {
        method,
        headers: { origin: web.url, 'x-requested-with': 'XMLHttpRequest' },
        ...(body ? { json: body } : {}),
      });
      const text = await res.text();
      const where = `${label} ${method} ${url}`;
      if (res.status >= 500) problems.push(`${where}: ${res.status} ${text.slice(0, 200)}`);
      for (const s of secrets) if (text.includes(s)) problems.push(`${where}: secret ${s.slice(0, 12)}… in the answer`);
      for (const m of markers) if (text.includes(m)) problems.push(`${where}: B's "${m}" in the answer`);
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* HTML or empty: the text checks above still apply */
      }
      for (const r of recordsIn(parsed)) {
        if (Number(r.params.account_id) === b.id) problems.push(`${where}: a record of account B`);
      }
    };

    const tamperBody: Json = {
      account_id: String(b.id),
      status: 'canceled',
      full_name: 'Tampered',
      name: 'Tampered',
      role: 'admin',
      active: 'false',
      password: 'tampered-password-1',
      phone: '+212699999999',
      code: 'tampered',
      sku: 'TAMPERED',
      price: '1',
      scopes: 'DELETE LEADS',
    };
    const shapes = [
      '',
      'filters=',
      'filters=x',
      `filters[account_id]=${b.id}`,
      `filters.account_id=${b.id}`,
      `filters.account_id[]=${b.id}`,
      `filters[account_id][]=${b.id}`,
      `filters.account_id.x=${b.id}`,
      `filters.account_id~~from=${b.id}`,
      `filters=${encodeURIComponent(JSON.stringify({ account_id: b.id }))}`,
      `filters[]=${b.id}`,
      'filters.__proto__.account_id=1',
      'filters[constructor][prototype][x]=1',
      'filters.created_at=zzz',
      'filters.created_at~~from=zzz',
      'perPage=-1',
      'page=1e20',
      'perPage=abc',
      'perPage=500',
      'direction=xyz',
      'sortBy=nope',
      `filters.id=${b.leadIds[0]}`,
      'filters.name=%00',
    ];

    for (const resource of admin.resources) {
      const rid = resource.id();
      const model = (
        resource as unknown as { model: { getAttributes(): Json; findAll(o: object): Promise<{ toJSON(): Json }[]> } }
      ).model;
      const columns = Object.keys(model.getAttributes());
      const hasAccount = columns.includes('account_id');
      const foreign = hasAccount
        ? (await model.findAll({ where: { account_id: b.id }, limit: 2, order: [['id', 'ASC']] })).map((r) =>
            r.toJSON(),
          )
        : rid === 'accounts'
          ? [{ id: b.id }]
          : [];
      const ownRow = hasAccount
        ? (await model.findAll({ where: { account_id: a.id }, limit: 1 }))[0]?.toJSON()
        : rid === 'accounts'
          ? { id: a.id }
          : undefined;
      if (hasAccount || rid === 'accounts') expect(foreign.length, `account B has rows in ${rid}`).to.be.greaterThan(0);
      const queries = [...shapes];
      for (const col of columns) {
        const value = foreign[0]?.[col];
        const text =
          value instanceof Date ? value.toISOString() : value === null || value === undefined ? '' : String(value);
        queries.push(
          `filters.${col}=${encodeURIComponent(text)}`,
          `filters[${col}]=${encodeURIComponent(text)}`,
          `sortBy=${col}&direction=desc`,
          `searchProperty=${col}&perPage=500`,
          `filters.${col}~~from=${encodeURIComponent(text)}`,
        );
      }

      for (const [name, action] of Object.entries(resource.decorate().actions)) {
        if (action.isResourceType()) {
          const reads = name === 'list' || name === 'search';
          for (const q of reads ? queries : shapes) {
            await call('GET', `/admin/api/resources/${rid}/actions/${name}?${q}`);
            if (!reads) await call('POST', `/admin/api/resources/${rid}/actions/${name}?${q}`, tamperBody);
          }
          if (name === 'search') {
            for (const col of columns) {
              const value = foreign[0]?.[col];
              if (typeof value === 'string' && value)
                await call(
                  'GET',
                  `/admin/api/resources/${rid}/actions/search/${encodeURIComponent(value.slice(0, 3))}?searchProperty=${col}`,
                );
            }
          }
        }
        const ids = foreign.map((r) => String(r.id));
        if (action.isRecordType()) {
          for (const id of [...ids, '99999999', '0', '-1', 'abc', '1e3', '99999999999999999999']) {
            await call('GET', `/admin/api/resources/${rid}/records/${id}/${name}`);
            await call('POST', `/admin/api/resources/${rid}/records/${id}/${name}`, tamperBody);
          }
        }
        if (action.isBulkType()) {
          const sets = [ids.join(','), ...(ownRow ? [`${ownRow.id},${ids[0]}`] : []), 'abc', `${ids[0]},abc`].map(
            (set) => `recordIds=${set}`,
          );
          sets.push(
            `recordIds[]=${ids[0]}`,
            `recordIds=${ids[0]}&recordIds=${ownRow?.id}`,
            `recordIds[a]=${ids[0]}`,
            '',
          );
          for (const set of sets) {
            await call('GET', `/admin/api/resources/${rid}/bulk/${name}?${set}`);
            await call('POST', `/admin/api/resources/${rid}/bulk/${name}?${set}`, tamperBody);
          }
        }
        // The same action at the addresses of the other kinds.
        for (const url of [
          `actions/${name}`,
          `records/${foreign[0]?.id ?? 1}/${name}`,
          `bulk/${name}?recordIds=${foreign[0]?.id ?? 1}`,
        ]) {
          await call('GET', `/admin/api/resources/${rid}/${url}`);
        }
      }
      for (const url of [
        'actions/nope',
        `records/${foreign[0]?.id ?? 1}/nope`,
        `bulk/nope?recordIds=${foreign[0]?.id ?? 1}`,
      ]) {
        await call('GET', `/admin/api/resources/${rid}/${url}`);
        await call('POST', `/admin/api/resources/${rid}/${url}`, tamperBody);
      }
    }
    // The custom pages (work queue, KPI): every page, read and posted, naming B's account and B's leads.
    const bIds = [b.leadIds[0], String(b.leadIds[1]), [b.leadIds[0]], { id: b.leadIds[0] }, 'abc', -1];
    for (const pageName of Object.keys(admin.options.pages ?? {})) {
      const url = `/admin/api/pages/${pageName}`;
      for (const q of shapes.concat(`account_id=${b.id}`, `account_id[]=${b.id}`, `account_id=${b.id}&by=agent`))
        await call('GET', `${url}?${q}`);
      for (const op of ['next', 'outcome', 'skip', 'counts', 'nope', undefined])
        for (const leadId of bIds) {
          await call('POST', url, { ...tamperBody, op, lead_id: leadId as never });
          await call('POST', url, { op, lead_id: leadId as never, account_id: b.id, status: 'canceled' });
        }
      await call('POST', `${url}?account_id=${b.id}`, { op: 'next' });
    }
    await call('GET', '/admin/api/resources/nope/actions/list');
    await call('GET', '/admin/api/resources/nope/records/1/show');
    expect(
      await ctx.models.Lead.count({ where: { id: a.leadIds } }),
      "a bulk action with a foreign id left A's leads in place",
    ).to.equal(2);
    return { requests, problems };
  }

  for (const role of ['seller', 'agent'] as const) {
    it(`a ${role} of account A reads, changes and learns nothing of account B through any panel action`, async () => {
      const before = await snapshotOf(b.id);
      const client = await login(web.url, a[role].email, a[role].password);
      const { requests, problems } = await attack(client, role);
      expect(requests).to.be.greaterThan(500);
      expect(problems.slice(0, 20)).to.deep.equal([]);
      expect(await snapshotOf(b.id)).to.equal(before);
    });
  }
});
