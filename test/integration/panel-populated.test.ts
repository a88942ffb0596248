import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { getCtx } from '../hooks.js';
import { makeAdmin, makeFilledAccount, type FilledAccount } from '../factories.js';
import { startTestServer } from '../helpers.js';
import { login } from '../session.js';

type Json = Record<string, unknown>;
type Populated = { id: unknown; title: string; params: Json };
type RecordJson = { id: unknown; params: Json; populated: Record<string, Populated | null> };

/**
 * Generated from the panel's own resources and their reference properties, for every role: a record's populated
 * reference carries the referenced record in full only when the role may view that resource; otherwise its id and
 * title, nothing else (an agent read the carrier's endpoint_url through an order).
 */
describe('panel references populated only as far as the role may view them', function () {
  this.timeout(300_000);

  it('When a role lists or shows a record whose reference it may not view, Then the reference carries only its id and title', async () => {
    const ctx = getCtx();
    const { sequelize } = ctx.db;
    const web = await startTestServer();
    try {
      const a: FilledAccount = await makeFilledAccount(ctx, 'pop');
      const admin = await makeAdmin(ctx);
      const clients = {
        admin: await login(web.url, admin.email, admin.password),
        seller: await login(web.url, a.seller.email, a.seller.password),
        agent: await login(web.url, a.agent.email, a.agent.password),
      };
      await clients.seller.json('GET', '/admin/api/resources/leads/actions/list');
      const { builtPanel } = await import('../../admin/admin.js');
      const resources = builtPanel()!.resources;

      // Every reference of every resource filled in one row of account A (where the referenced table has a row).
      const pairs: { rid: string; path: string; target: string; title: string }[] = [];
      for (const r of resources) {
        for (const p of Object.values(r.decorate().getFlattenProperties())) {
          const target = p.reference();
          if (!target) continue;
          pairs.push({
            rid: r.id(),
            path: p.propertyPath,
            target: target.id(),
            title: target.decorate().titleProperty().name(),
          });
          const q = (sql: string) =>
            sequelize.query<{ id: number }>(sql, { type: QueryTypes.SELECT, replacements: { a: a.id } });
          const own = (t: string) =>
            t === 'accounts'
              ? `SELECT :a AS id`
              : t === 'cities'
                ? `SELECT id FROM cities`
                : `SELECT id FROM "${t}" WHERE account_id = :a`;
          const [ref] = await q(`${own(target.id())} ORDER BY 1 LIMIT 1`);
          const [row] = await q(`${own(r.id())} ORDER BY 1 LIMIT 1`);
          if (ref && row)
            await sequelize.query(
              `UPDATE "${r.id()}" SET "${p.propertyPath}" = :ref WHERE id = :row AND "${p.propertyPath}" IS NULL`,
              {
                replacements: { ref: ref.id, row: row.id },
              },
            );
        }
      }

      const problems: string[] = [];
      const restricted: string[] = [];
      for (const [role, client] of Object.entries(clients)) {
        const viewable = new Map<string, boolean>();
        const mayView = async (target: string, id: unknown) => {
          if (!viewable.has(target)) {
            const res = await client.json<{ record?: { baseError?: { type?: string } } }>(
              'GET',
              `/admin/api/resources/${target}/records/${id}/show`,
            );
            viewable.set(target, res.status === 200 && res.body.record?.baseError?.type !== 'ForbiddenError');
          }
          return viewable.get(target)!;
        };
        for (const { rid, path, target, title } of pairs) {
          const list = await client.json<{ records?: RecordJson[] }>(
            'GET',
            `/admin/api/resources/${rid}/actions/list?perPage=500`,
          );
          const records = list.body.records ?? [];
          const shown = await Promise.all(
            records
              .slice(0, 3)
              .map(
                async (r) =>
                  (
                    await client.json<{ record?: RecordJson }>(
                      'GET',
                      `/admin/api/resources/${rid}/records/${r.id}/show`,
                    )
                  ).body.record,
              ),
          );
          for (const rec of [...records, ...shown]) {
            const ref = rec?.populated?.[path];
            if (!ref || (await mayView(target, ref.id))) continue;
            restricted.push(`${role} ${rid}.${path}`);
            const extra = Object.keys(ref.params).filter((k) => k !== 'id' && k !== title);
            if (extra.length) problems.push(`${role} ${rid}.${path} → ${target}: ${extra.join(', ')}`);
            if (!ref.title) problems.push(`${role} ${rid}.${path} → ${target}: no title`);
          }
        }
      }
      expect(problems).to.deep.equal([]);
      // the case found by the attack is among those checked: an agent reading an order's carrier
      expect(restricted).to.include('agent orders.shipping_company_id');
    } finally {
      await web.close();
    }
  });
});
