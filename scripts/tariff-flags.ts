import type { ShippingCompanyInput } from '../src/shipping/shipping.service.js';

/**
 * The CLI's tariff flags of `shipping:create` and `shipping:update` (docs/cash.md, "Tariffs"), as the service takes
 * them: `--delivery-fee 25 --return-fee 10 --cod-commission 1.5 --remit-within-days 14` and
 * `--city-fee "Casablanca=20,Rabat=25/10"` (a city's delivery fee, and its return fee after a slash; "" removes them).
 * A figure that is not a number stays what it was typed, for the service to refuse in words.
 */
export const TARIFF_FLAGS = ['delivery-fee', 'return-fee', 'cod-commission', 'remit-within-days', 'city-fee'];

export const TARIFF_HELP =
  '[--delivery-fee N] [--return-fee N] [--cod-commission PERCENT] [--remit-within-days DAYS] ' +
  '[--city-fee "Casablanca=20,Rabat=25/10"]';

const figure = (v: string) => (v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v);

function cityFees(text: string) {
  return text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => {
      const [city, fees = ''] = p.split('=');
      const [delivery, back] = fees.split('/');
      return {
        city: city.trim(),
        delivery_fee: figure(delivery ?? ''),
        ...(back === undefined ? {} : { return_fee: figure(back) }),
      };
    });
}

export function tariffOf(flags: Record<string, string | boolean | undefined>): Partial<ShippingCompanyInput> {
  const text = (k: string) => (typeof flags[k] === 'string' ? (flags[k] as string) : undefined);
  const out: Record<string, unknown> = {};
  const pairs: [string, string][] = [
    ['delivery-fee', 'delivery_fee'],
    ['return-fee', 'return_fee'],
    ['cod-commission', 'cod_commission_percent'],
    ['remit-within-days', 'remit_within_days'],
  ];
  for (const [flag, field] of pairs) if (text(flag) !== undefined) out[field] = figure(text(flag)!);
  if (text('city-fee') !== undefined) out.city_fees = cityFees(text('city-fee')!);
  return out as Partial<ShippingCompanyInput>;
}
