import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import type { Actor } from '../../src/actor.js';
import { SEARCH_COUNT_LIMIT } from '../../src/query.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, type TestAccount } from '../factories.js';
import { captureSql, planWithoutSeqScan, useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';

const refs = (body: { data: { reference?: string; lead_reference?: string }[] }) =>
  body.data.map((d) => d.reference ?? d.lead_reference);

/** Rows a query returns, one column. */
async function column(sql: string, bind: unknown[]): Promise<string[]> {
  const rows = await getCtx().db.sequelize.query<{ v: string }>(sql, { bind, type: QueryTypes.SELECT });
  return rows.map((r) => r.v);
}

/**
 * `n` leads named `${name} ${i}` written in SQL (a page test needs more rows than the API would write quickly), two a
 * minute so times tie and the id decides, with a history row each and an order for every third, in Safi.
 */
async function seed(acc: TestAccount, name: string, n: number, tag: string) {
  await getCtx().db.sequelize.query(
    `WITH l AS (
       INSERT INTO leads (account_id, reference, phone, phone_normalized, full_name, city, status, total, created_at)
       SELECT $1, $3 || lpad(g::text, 8, '0'), '+2125' || lpad(g::text, 8, '0'), '2125' || lpad(g::text, 8, '0'),
              $2 || ' ' || g, 'Safi', 'new', 0, now() - (g / 2) * interval '1 minute'
         FROM generate_series(1, $4) g
       RETURNING id, account_id, reference, phone, phone_normalized, full_name, city, created_at),
     h AS (INSERT INTO lead_histories (account_id, lead_id, lead_reference, new_status, changed_by, changed_at)
           SELECT account_id, id, reference, 'new', 'seed', created_at FROM l)
     INSERT INTO orders (account_id, reference, lead_id, lead_reference, phone, phone_normalized, full_name, city,
                         status, created_at)
     SELECT account_id, 'O' || substr(reference, 2), id, reference, phone, phone_normalized, full_name, city, 'new',
            created_at
       FROM l WHERE id % 3 = 0`,
    { bind: [acc.id, name, tag, n] },
  );
}

describe('list pages', function () {
  this.timeout(60_000);
  const server = useTestServer();

  it('pages a search newest first, from its matches within the bound and from the newest rows beyond it', async () => {
    const acc = await makeAccount(getCtx());
    await seed(acc, 'Sparse Buyer', 40, 'LS');
    await seed(acc, 'Dense Buyer', SEARCH_COUNT_LIMIT + 20, 'LD');
    const api = restClient(server.url, await acc.token());
    const expected = (name: string) =>
      column(
        `SELECT reference AS v FROM leads WHERE account_id = $1 AND full_name ILIKE $2 ORDER BY created_at DESC, id DESC`,
        [acc.id, `%${name}%`],
      );

    const sparse = await expected('sparse buyer');
    const pages = [];
    for (const page of [1, 2, 3])
      pages.push(await api('GET', `/leads?search_by=full_name&keyWord=sparse%20buyer&page=${page}`));
    expect(pages.flatMap((p) => refs(p.body))).to.deep.equal(sparse);
    expect(pages[2].body.meta).to.include({ total: 40, total_exact: true, last_page: 3 });
    const past = await api('GET', '/leads?search_by=full_name&keyWord=sparse%20buyer&page=4');
    expect([past.body.data, past.body.meta.total, past.body.meta.total_exact]).to.deep.equal([[], 40, true]);

    const dense = await expected('dense buyer');
    const first = await api('GET', '/leads?search_by=full_name&keyWord=dense%20buyer&per_page=100');
    expect(refs(first.body)).to.deep.equal(dense.slice(0, 100));
    expect(first.body.meta).to.include({ total: SEARCH_COUNT_LIMIT, total_exact: false });
    const last = await api('GET', `/leads?search_by=full_name&keyWord=dense%20buyer&per_page=100&page=6`);
    expect(refs(last.body)).to.deep.equal(dense.slice(500, 600));
    expect(last.body.meta).to.include({ total: dense.length, total_exact: true });
  });

  it('pages deep into an account, a status and a history by OFFSET over the same order', async () => {
    const acc = await makeAccount(getCtx());
    await seed(acc, 'Deep Buyer', 700, 'LP');
    await getCtx().db.sequelize.query("UPDATE leads SET status = 'wrong' WHERE account_id = $1 AND id % 4 = 0", {
      bind: [acc.id],
    });
    const api = restClient(server.url, await acc.token());
    const all = await column(
      'SELECT reference AS v FROM leads WHERE account_id = $1 ORDER BY created_at DESC, id DESC',
      [acc.id],
    );
    expect(refs((await api('GET', '/leads?page=20')).body)).to.deep.equal(all.slice(285, 300));
    // a near page (its rows read directly), a deep one (keys first), and one past the end (the kept total alone)
    for (const [page, slice] of [
      [2, all.slice(15, 30)],
      [40, all.slice(585, 600)],
      [48, []],
    ] as const) {
      const { body } = await api('GET', `/leads?page=${page}`);
      expect([refs(body), body.meta.total, body.meta.total_exact], `page ${page}`).to.deep.equal([slice, 700, true]);
    }
    const wrong = await column(
      "SELECT id::text AS v FROM leads WHERE account_id = $1 AND status = 'wrong' ORDER BY created_at DESC, id DESC",
      [acc.id],
    );
    const byStatus = await getCtx().services.leads.list(acc.seller.actor, { status: 'wrong', page: 5 }, 'dashboard');
    expect(byStatus.data.map((l) => String(l.id))).to.deep.equal(wrong.slice(60, 75));
    expect(byStatus.total).to.equal(wrong.length);
    const history = await column(
      'SELECT lead_reference AS v FROM lead_histories WHERE account_id = $1 ORDER BY changed_at DESC, id DESC',
      [acc.id],
    );
    const h = await api('GET', '/lead-histories?page=7&per_page=50');
    expect(refs(h.body)).to.deep.equal(history.slice(300, 350));
    expect(h.body.meta).to.include({ total: 700, total_exact: true });
    const orders = await column(
      'SELECT reference AS v FROM orders WHERE account_id = $1 AND city ILIKE $2 ORDER BY created_at DESC, id DESC',
      [acc.id, '%saf%'],
    );
    const o = await api('GET', '/orders?search_by=city&keyWord=saf&page=3');
    expect(refs(o.body)).to.deep.equal(orders.slice(30, 45));
    expect(o.body.meta).to.include({ total: orders.length, total_exact: true });
  });

  it("lists an admin's every account in the order rows were written, and an account by its time", async () => {
    const ctx = getCtx();
    const [a, b] = [await makeAccount(ctx), await makeAccount(ctx)];
    await seed(a, 'Older Written', 10, 'LA');
    await seed(b, 'Newer Written', 10, 'LB');
    // a's leads now look newest by time, though b's were written after them
    await ctx.db.sequelize.query("UPDATE leads SET created_at = created_at + interval '1 day' WHERE account_id = $1", {
      bind: [a.id],
    });
    const admin = await makeAdmin(ctx);
    const every = await ctx.services.leads.list(admin.actor, { perPage: 30 }, 'dashboard');
    const newest = await column('SELECT reference AS v FROM leads ORDER BY id DESC LIMIT 30', []);
    expect(every.data.map((l) => l.reference)).to.deep.equal(newest);
    const own = await ctx.services.leads.list(a.seller.actor, { perPage: 5 }, 'dashboard');
    expect(own.data.map((l) => l.reference)).to.deep.equal(
      await column('SELECT reference AS v FROM leads WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT 5', [
        a.id,
      ]),
    );
    const histories = await ctx.services.histories.listLeadHistories(admin.actor, { per_page: 20 });
    expect(histories.data.map((r) => r.lead_reference)).to.deep.equal(
      await column('SELECT lead_reference AS v FROM lead_histories ORDER BY id DESC LIMIT 20', []),
    );
  });

  it('plans each list through its index, with no scan of the table', async () => {
    const ctx = getCtx();
    const { sequelize } = ctx.db;
    const acc = await makeAccount(ctx);
    await seed(acc, 'Planned Buyer', 600, 'LQ');
    // three of four leads called since: `new` is a quarter of the account, so its status index is the one that pays
    // (with every lead new, the account's created index reads the same rows and the planner may take either)
    await sequelize.query(`UPDATE leads SET status = 'no_answer' WHERE account_id = $1 AND id % 4 <> 0`, {
      bind: [acc.id],
    });
    await sequelize.query('VACUUM ANALYZE leads, orders, lead_histories');
    const admin = await makeAdmin(ctx);
    const seller = acc.seller.actor;
    const cases: [string, RegExp, (a: Actor) => Promise<unknown>][] = [
      [
        'REST page 3',
        /Index (Only )?Scan using leads_account_created_idx/,
        (a) => ctx.services.leads.list(a, { page: 3 }, 'rest'),
      ],
      [
        'status',
        /Index (Only )?Scan using leads_account_status_created_idx/,
        (a) => ctx.services.leads.list(a, { status: 'new' }, 'dashboard'),
      ],
      [
        'orders',
        /Index (Only )?Scan using orders_account_created_idx/,
        (a) => ctx.services.orders.list(a, { page: 2 }),
      ],
      [
        'history',
        /Index (Only )?Scan using lead_histories_account_changed_idx/,
        (a) => ctx.services.histories.listLeadHistories(a, {}),
      ],
    ];
    const plans = [
      ...cases.map(([name, index, list]) => [name, index, () => list(seller)] as const),
      [
        'admin, every account',
        /Index (Only )?Scan Backward using leads_pkey/,
        () => ctx.services.leads.list(admin.actor, {}, 'dashboard'),
      ] as const,
    ];
    for (const [name, index, list] of plans) {
      const { sent } = await captureSql(sequelize, list);
      const statement = sent.find((s) => s.sql.includes('list_total__'))!;
      const plan = await planWithoutSeqScan(sequelize, statement);
      expect(plan, name).to.match(index);
      expect(plan, name).not.to.include('Seq Scan');
    }
  });
});
