import { expect } from 'chai';
import { fieldMessage, pageWords, validationText } from '../../admin/panel-form-errors.js';
import { intakeReason } from '../../admin/resources/intake-reasons.js';
import { formatInZone, isoInZone, wallTime, wallTimeToUtc, zoneForCountry } from '../../src/time-zones.js';

describe('panel words for service refusals (admin/panel-form-errors.ts)', () => {
  const words = pageWords('en');

  it("When the service says Laravel's sentence, Then the panel says it in the field's own label", () => {
    expect(fieldMessage('The action_date field is required when status is call_later.', words)).to.equal(
      'Call back at is required for Call later',
    );
    expect(fieldMessage('The phone field must be at least 7 characters.', words)).to.equal(
      'Phone must be at least 7 characters',
    );
    expect(fieldMessage('The full_name field is required.', words)).to.equal('Name is required');
  });

  it('When no rule knows a sentence, Then it is kept with its field names as labels', () => {
    expect(fieldMessage('The time_zone must be a time zone such as Africa/Casablanca.', words)).to.equal(
      'Time zone must be a time zone such as Africa/Casablanca.',
    );
  });

  it('When a service names the value it refuses (issue 41), Then every language names it too', () => {
    const status = "The status 'xyz' is not one of: new, call_later.";
    const sku = [
      "Sku 'abc-1' does not exist; did you mean 'ABC-1'?",
      "Sku 'nope' does not exist.",
      "Sku 'OLD-1' belongs to an inactive product.",
    ];
    const past = "The action_date '2020-01-01T10:00:00+00:00' is in the past: a call-back must be after now.";
    expect([status, ...sku, past].map((m) => fieldMessage(m, words))).to.deep.equal([
      "Status 'xyz' is not one of: New, Call later",
      "Sku 'abc-1' does not exist; did you mean 'ABC-1'?",
      "Sku 'nope' does not exist",
      "Sku 'OLD-1' belongs to an inactive product",
      "Call back at '2020-01-01T10:00:00+00:00' is in the past: a call-back must be in the future",
    ]);
    for (const language of ['fr', 'ar']) {
      const said = [status, ...sku, past].map((m) => fieldMessage(m, pageWords(language)));
      said.forEach((text, i) => {
        expect(text, text).to.not.match(/^(The|Sku) /);
        expect(text).to.include(
          ["'xyz'", "'abc-1'", "'nope'", "'OLD-1'", "'2020-01-01T10:00:00+00:00'"][i].slice(1, -1),
        );
      });
      expect(said[1]).to.include('ABC-1');
    }
  });

  it('When a language has no words yet, Then English is used', () => {
    expect(validationText('required', { field: 'Phone' }, 'xx')).to.equal('Phone is required');
  });
});

describe('account time zones (src/time-zones.ts)', () => {
  it('When a time is written, Then it is the zone wall time with the zone named, across a clock change', () => {
    expect(formatInZone('2026-12-01T13:30:00Z', 'Africa/Casablanca')).to.equal('1 Dec 2026, 14:30 (Africa/Casablanca)');
    expect(formatInZone('2026-07-01T10:00:00Z', 'Europe/Paris')).to.equal('1 Jul 2026, 12:00 (Europe/Paris)');
    expect(isoInZone('2026-07-01T10:00:00Z', 'Europe/Paris')).to.equal('2026-07-01T12:00:00+02:00');
    expect(formatInZone(null, 'UTC')).to.equal('—');
  });

  it('When a wall time is typed in a zone, Then it is read as that instant, and back', () => {
    expect(wallTimeToUtc('2026-12-01T14:30', 'Europe/Paris')!.toISOString()).to.equal('2026-12-01T13:30:00.000Z');
    expect(wallTimeToUtc('2026-07-01T14:30', 'Europe/Paris')!.toISOString()).to.equal('2026-07-01T12:30:00.000Z');
    expect(wallTimeToUtc('2026-12-01', 'Africa/Casablanca')!.toISOString()).to.equal('2026-11-30T23:00:00.000Z');
    expect(wallTime('2026-12-01T13:30:00Z', 'Africa/Casablanca')).to.equal('2026-12-01T14:30');
    expect(wallTimeToUtc('tomorrow', 'UTC')).to.equal(null);
  });

  it('When a country has no zone listed, Then its accounts start in UTC', () => {
    expect([zoneForCountry('ma'), zoneForCountry('SN'), zoneForCountry('JP')]).to.deep.equal([
      'Africa/Casablanca',
      'Africa/Dakar',
      'UTC',
    ]);
  });
});

describe('intake reasons in the reader’s words (issue 41: no English left on French screens)', () => {
  it("When a shop's order was refused by a lead rule, Then its detail is said in the reader's language too", () => {
    expect(intakeReason('invalid order: The phone field is required.', pageWords('fr'))).to.equal(
      'Commande invalide : Téléphone est obligatoire',
    );
    expect(intakeReason("invalid order: Sku 'X1' does not exist.", pageWords('fr'))).to.equal(
      "Commande invalide : Le SKU « X1 » n'existe pas",
    );
  });
});
