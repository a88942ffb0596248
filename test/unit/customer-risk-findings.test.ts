import { expect } from 'chai';
import { DEFAULT_RISK } from '../../src/accounts/risk-thresholds.js';
import { riskFindings, riskReason } from '../../src/customers/customer.risk.js';

/** The risk rule's reasons as data (the panel words them in each language) and as the English words they make. */
describe('customer risk findings', () => {
  it('When a customer has as many returns as the limit, Then the finding names the returns and the limit', () => {
    expect(riskFindings({ delivered: 0, returned: 2 }, DEFAULT_RISK)).to.deep.equal([
      { kind: 'returns', returned: 2, limit: 2 },
    ]);
  });

  it('When both conditions hold, Then both findings come, returns first, with the rate and its limit', () => {
    expect(riskFindings({ delivered: 1, returned: 2 }, DEFAULT_RISK)).to.deep.equal([
      { kind: 'returns', returned: 2, limit: 2 },
      { kind: 'delivery', delivered: 1, finished: 3, rate: 33, limit: 50 },
    ]);
  });

  it('When a customer is under every limit, Then there is no finding and no reason', () => {
    const good = { delivered: 3, returned: 1 };
    expect(riskFindings(good, DEFAULT_RISK)).to.deep.equal([]);
    expect(riskReason(good, DEFAULT_RISK)).to.equal(null);
  });

  it('When the findings are worded in English, Then the reason reads as before, one sentence per finding', () => {
    expect(riskReason({ delivered: 1, returned: 2 }, DEFAULT_RISK)).to.equal(
      '2 parcels returned (limit 2); 1 of 3 orders delivered (33 %, under 50 %)',
    );
    expect(riskReason({ delivered: 0, returned: 1 }, { ...DEFAULT_RISK, risk_min_returns: 1 })).to.equal(
      '1 parcel returned (limit 1)',
    );
  });
});
