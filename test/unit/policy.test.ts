import { expect } from 'chai';
import { SCOPES, type Actor, type Role } from '../../src/actor.js';
import { ABILITIES, RESOURCES, accountScope, can, type Ability, type Resource } from '../../src/policy.js';

const user = (role: Role, accountId = 1): Actor => ({ kind: 'user', userId: 10, accountId, role, name: role });

/** decisions.md, written out once more by hand so the policy table is checked against an independent reading. */
function expected(role: Role, ability: Ability, resource: Resource): boolean {
  if (role === 'admin') return true;
  const read = ability === 'viewAny' || ability === 'view';
  if (role === 'agent') {
    if (resource === 'lead' || resource === 'order') return read || ability === 'update';
    // the blocklist too: an agent sees why a caller's leads arrive canceled (issue 33)
    if (['leadHistory', 'orderHistory', 'product', 'city', 'blocklist'].includes(resource)) return read;
    if (resource === 'account') return ability === 'view';
    if (resource === 'customer') return read; // who is on the line, issue 33
    if (resource === 'stock') return read; // what is left before promising a delivery, issue 43
    return false;
  }
  switch (resource) {
    case 'lead':
    case 'order':
      return true;
    case 'leadHistory':
    case 'orderHistory':
    case 'city':
    case 'customer': // kept by the database, issue 33
      return read;
    case 'product':
    case 'user':
    case 'shippingCompany':
    case 'webhook': // the account's webhook endpoints and their log, issue 21
    case 'source': // the account's landing-page forms and shops, issue 34 (agents: none)
      return !['import', 'export'].includes(ability);
    case 'token':
    case 'blocklist': // an entry is added or removed, never edited (issue 33)
      return ['viewAny', 'view', 'create', 'delete'].includes(ability);
    case 'account':
      return ability === 'view' || ability === 'update'; // its settings (phone country), issue 21
    case 'importRun':
    case 'exportRun':
      return read || ability === 'create';
    case 'stock': // levels, the ledger (added to, never edited), warehouses, thresholds: issue 43
      return ['viewAny', 'view', 'create', 'update'].includes(ability);
    case 'cash': // outstanding cash and the carriers' statements (recorded, never edited): issue 44; agents: none
      return ['viewAny', 'view', 'create'].includes(ability);
  }
  return false;
}

describe('policy', () => {
  for (const role of ['admin', 'seller', 'agent'] as Role[]) {
    for (const resource of RESOURCES) {
      for (const ability of ABILITIES) {
        const want = expected(role, ability, resource);
        it(`${role} ${want ? 'may' : 'may not'} ${ability} ${resource}`, () => {
          expect(can(user(role), ability, resource)).to.equal(want);
        });
      }
    }
  }

  it('denies a seller any record of another account, but lets an admin act on it', () => {
    expect(can(user('seller', 1), 'view', 'lead', { account_id: 2 })).to.equal(false);
    expect(can(user('seller', 1), 'view', 'lead', { account_id: 1 })).to.equal(true);
    expect(can(user('admin', 1), 'delete', 'lead', { account_id: 2 })).to.equal(true);
  });

  it('never lets a seller create or edit an admin login', () => {
    expect(can(user('seller', 1), 'create', 'user', { account_id: 1, role: 'admin' })).to.equal(false);
    expect(can(user('seller', 1), 'create', 'user', { account_id: 1, role: 'agent' })).to.equal(true);
  });

  it('grants REST tokens exactly their scopes', () => {
    const token = (scopes: string[]): Actor => ({
      kind: 'token',
      tokenId: 1,
      userId: 1,
      accountId: 1,
      role: 'seller',
      scopes: scopes as never,
      name: 't',
    });
    expect(can(token(['VIEW LEADS']), 'viewAny', 'lead')).to.equal(true);
    expect(can(token(['VIEW LEADS']), 'create', 'lead')).to.equal(false);
    expect(can(token(['VIEW LEADS']), 'viewAny', 'leadHistory')).to.equal(true);
    expect(can(token(['VIEW LEADS']), 'viewAny', 'orderHistory')).to.equal(false);
    expect(can(token([...SCOPES]), 'import', 'lead')).to.equal(false);
    expect(can(token([...SCOPES]), 'view', 'lead', { account_id: 2 })).to.equal(false);
    expect(can(token(['MANAGE BLOCKLIST']), 'create', 'blocklist')).to.equal(true);
    expect(can(token(['MANAGE WEBHOOKS', 'VIEW LEADS']), 'viewAny', 'blocklist')).to.equal(false);
  });

  it('scopes queries to the actor account; an admin may pick one or see all', () => {
    expect(accountScope(user('seller', 7), 9)).to.deep.equal({ account_id: 7 });
    expect(accountScope(user('admin', 1))).to.deep.equal({});
    expect(accountScope(user('admin', 1), 9)).to.deep.equal({ account_id: 9 });
  });
});
