import { expect } from 'chai';
import { QueryTypes, Sequelize, type Transaction } from 'sequelize';
import { createLeadService, type LeadService, type PreparedLead } from '../../src/leads/lead.service.js';
import { ConflictError } from '../../src/errors.js';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { adminUrl } from '../processes.js';

/**
 * insertLeads checks the parents of a batch once (locks + counts) and inserts with the per-row foreign-key triggers
 * off when the role may; these tests hold that to the same guarantees as the foreign keys, and fail when the schema
 * grows a foreign key or trigger that the batch check does not know about.
 */
describe('lead inserts: parent checks per batch', () => {
  const sql = <T extends object>(q: string, bind: unknown[] = [], transaction?: Transaction) =>
    getCtx().db.sequelize.query<T>(q, { bind, type: QueryTypes.SELECT, transaction });
  const prepared = (acc: TestAccount, productId: number, phone: string): PreparedLead => ({
    phone,
    phone_normalized: phone,
    full_name: 'Parent Check',
    city: null,
    city_id: null,
    area: null,
    address: null,
    data: [],
    products: [{ product_id: productId, sku: acc.skus.active[0], name: 'x', quantity: 1, price: 5 }],
    total: 5,
  });
  const productId = async (acc: TestAccount) =>
    (
      await sql<{ id: number }>('SELECT id FROM products WHERE account_id = $1 AND sku = $2', [
        acc.id,
        acc.skus.active[0],
      ])
    )[0].id;
  const rowChecked = (): LeadService => {
    const ctx = getCtx();
    return createLeadService({ ...ctx, config: { ...ctx.config, leadParentChecks: 'row' } });
  };

  it('knows every foreign key and trigger of the tables it writes (a new one must be added to lockParents)', async () => {
    const fks = await sql<{ fk: string }>(
      `SELECT conrelid::regclass || '.' || a.attname || ' -> ' || confrelid::regclass AS fk FROM pg_constraint c
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey)
        WHERE c.contype = 'f' AND c.conrelid IN ('leads'::regclass, 'lead_products'::regclass, 'lead_histories'::regclass) ORDER BY 1`,
    );
    expect(fks.map((f) => f.fk)).to.deep.equal([
      'lead_histories.changed_by_user_id -> users',
      'lead_histories.lead_id -> leads',
      'lead_products.lead_id -> leads',
      'lead_products.product_id -> products',
      'leads.account_id -> accounts',
      'leads.city_id -> cities',
      'leads.created_by_token_id -> api_tokens',
      'leads.created_by_user_id -> users',
      'leads.first_touch_user_id -> users',
      'leads.import_run_id -> import_runs',
      'leads.source_id -> lead_sources',
    ]);
    // Every trigger that fires on INSERT into these tables (internal ones included, e.g. a deferrable unique
    // constraint's) is skipped by a batch-checked insert unless it is ENABLE ALWAYS: only the eleven foreign-key checks (a new lead's first_touch_user_id is always null)
    // above may be skipped; the row counts', the customers', the KPI rollup's and the webhooks' triggers
    // (migrations/*-row-counts.ts, *-customers.ts, *-kpi-daily.ts, *-webhooks.ts) must fire always.
    const onInsert = await sql<{ fn: string; always: boolean; n: number }>(
      `SELECT tgfoid::regproc::text AS fn, tgenabled = 'A' AS always, count(*)::int AS n FROM pg_trigger
        WHERE tgrelid IN ('leads'::regclass, 'lead_products'::regclass, 'lead_histories'::regclass)
          AND tgtype & 4 <> 0 GROUP BY 1, 2 ORDER BY 1`,
    );
    expect(onInsert, 'a trigger on these tables would not fire for batch-checked inserts').to.deep.equal([
      { fn: '"RI_FKey_check_ins"', always: false, n: 11 },
      { fn: 'count_rows', always: true, n: 1 },
      { fn: 'count_rows_by_status', always: true, n: 1 },
      { fn: 'customers_leads_insert', always: true, n: 1 },
      { fn: 'kpi_mark_lead_histories', always: true, n: 1 },
      { fn: 'kpi_mark_lead_products', always: true, n: 1 },
      { fn: 'kpi_mark_leads', always: true, n: 1 },
      { fn: 'webhooks_emit_lead_histories', always: true, n: 1 },
    ]);
  });

  it('runs per batch here, and leaves the rest of the transaction with its triggers on', async () => {
    const acc = await makeAccount(getCtx());
    const pid = await productId(acc);
    const role = await getCtx().db.sequelize.transaction(async (transaction) => {
      await getCtx().services.leads.insertLeads(acc.seller.actor, [prepared(acc, pid, '+212600700001')], {
        transaction,
      });
      return (await sql<{ r: string }>("SELECT current_setting('session_replication_role') AS r", [], transaction))[0]
        .r;
    });
    expect(role).to.equal('origin');
  });

  it('runs per batch on the embedded server as its own role, which is not a superuser', async function () {
    if (!getCtx().db.embedded) this.skip(); // DATABASE_URL names whatever role the operator chose
    const [role] = await sql<{ name: string; superuser: string; owner: string }>(
      `SELECT current_user AS name, current_setting('is_superuser') AS superuser,
              (SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()) AS owner`,
    );
    expect(role).to.deep.equal({ name: 'leadflow_app', superuser: 'off', owner: 'leadflow_app' });
    const refused = await sql('CREATE ROLE leadflow_never LOGIN').then(
      () => null,
      (e: { original?: { code?: string } }) => e.original?.code,
    );
    expect(refused, 'the application role may not create roles').to.equal('42501');
    // the batch path needs session_replication_role, granted to this role alone
    await getCtx().db.sequelize.transaction((transaction) =>
      sql('SET LOCAL session_replication_role = replica', [], transaction),
    );
  });

  for (const mode of ['batch', 'row'] as const) {
    it(`refuses a batch naming a product that no longer exists, writing nothing (${mode} checks)`, async () => {
      const acc = await makeAccount(getCtx());
      const pid = await productId(acc);
      const leads = mode === 'row' ? rowChecked() : getCtx().services.leads;
      const batch = [prepared(acc, pid, '+212600700010'), prepared(acc, 2_000_000_000, '+212600700011')];
      const err = await getCtx()
        .db.sequelize.transaction((transaction) => leads.insertLeads(acc.seller.actor, batch, { transaction }))
        .then(
          () => null,
          (e: Error) => e,
        );
      expect(err).to.be.an('error');
      if (mode === 'batch')
        expect(err)
          .to.be.instanceOf(ConflictError)
          .and.have.property('message')
          .that.match(/product/);
      else expect(err).to.have.property('name', 'SequelizeForeignKeyConstraintError');
      expect(await getCtx().models.Lead.count({ where: { account_id: acc.id } })).to.equal(0);
    });
  }

  it('falls back to per-row checks for a role that may not set session_replication_role', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const pid = await productId(acc);
    const role = 'leadflow_plain_test';
    const admin = new Sequelize(adminUrl(), { dialect: 'postgres', logging: false });
    await admin.query(`DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE ${role} LOGIN; END IF; END $$;
      ALTER ROLE ${role} PASSWORD 'plain-test-password' NOSUPERUSER;`);
    await ctx.db.sequelize.query(`GRANT USAGE ON SCHEMA public TO ${role};
      GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO ${role}; GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role};`);
    const url = new URL(ctx.db.url);
    url.username = role;
    url.password = 'plain-test-password';
    const plain = new Sequelize(url.toString(), { dialect: 'postgres', logging: false });
    try {
      const leads = createLeadService({ ...ctx, db: { ...ctx.db, sequelize: plain } });
      const refs = await plain.transaction((transaction) =>
        leads.insertLeads(acc.seller.actor, [prepared(acc, pid, '+212600700030')], { transaction }),
      );
      expect(refs).to.have.length(1);
      const bad = await plain
        .transaction((transaction) =>
          leads.insertLeads(acc.seller.actor, [prepared(acc, 2_000_000_000, '+212600700031')], { transaction }),
        )
        .then(
          () => null,
          (e: Error) => e.name,
        );
      expect(bad).to.equal('SequelizeForeignKeyConstraintError');
      expect(await ctx.models.Lead.count({ where: { account_id: acc.id } })).to.equal(1);
    } finally {
      await plain.close();
      await admin.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
      await admin.close();
    }
  });

  it('holds the parents until commit: a product delete waits, then its ON DELETE action reaches the new rows', async () => {
    const acc = await makeAccount(getCtx());
    const pid = await productId(acc);
    const { sequelize } = getCtx().db;
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let inserted!: () => void;
    const written = new Promise<void>((r) => {
      inserted = r;
    });
    const insert = sequelize.transaction(async (transaction) => {
      await getCtx().services.leads.insertLeads(acc.seller.actor, [prepared(acc, pid, '+212600700020')], {
        transaction,
      });
      inserted();
      await held;
    });
    await written;
    const blocked = await sequelize
      .transaction(async (transaction) => {
        await sequelize.query("SET LOCAL lock_timeout = '300ms'", { transaction });
        await sequelize.query('DELETE FROM products WHERE id = $1', { bind: [pid], transaction });
      })
      .then(
        () => null,
        (e: { original?: { code?: string } }) => e.original?.code,
      );
    expect(blocked, 'the delete waited for the lock (lock_not_available)').to.equal('55P03');
    release();
    await insert;
    await sequelize.query('DELETE FROM products WHERE id = $1', { bind: [pid] });
    const rows = await sql<{ product_id: number | null }>(
      'SELECT lp.product_id FROM lead_products lp JOIN leads l ON l.id = lp.lead_id WHERE l.account_id = $1',
      [acc.id],
    );
    expect(rows).to.deep.equal([{ product_id: null }]);
  });
});
