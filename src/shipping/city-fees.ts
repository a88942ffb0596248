import Joi from 'joi';
import type { Sequelize } from 'sequelize';
import { fromCents, money, toCents } from '../money.js';
import { select } from '../query.js';

// A carrier's fee per city (docs/cash.md, "Tariffs"): an order delivered or returned in one of these cities costs its
// fee instead of the flat one (a city without a return fee of its own returns at the flat return fee).

export const CITY_FEES_MAX = 500;

export const cityFeesSchema = Joi.array()
  .max(CITY_FEES_MAX)
  .items(
    Joi.object({
      city: Joi.string().trim().min(1).max(100).required(),
      delivery_fee: money().required(),
      return_fee: money(),
    }),
  )
  .unique((a: { city: string }, b: { city: string }) => a.city.toLowerCase() === b.city.toLowerCase());

export interface CityFee {
  city: string;
  delivery_fee: number;
  return_fee?: number | null;
}

/** Replaces the carrier's city fees with `fees` (an empty list removes them), in one transaction. */
export async function setCityFees(sequelize: Sequelize, c: { id: number; account_id: number }, fees: CityFee[]) {
  await sequelize.transaction(async (t) => {
    await select(sequelize, 'DELETE FROM shipping_city_fees WHERE shipping_company_id = $1', [c.id], t);
    await select(
      sequelize,
      `INSERT INTO shipping_city_fees (shipping_company_id, account_id, city, delivery_fee, return_fee)
       SELECT $1, $2, f.* FROM unnest($3::text[], $4::bigint[], $5::bigint[]) AS f`,
      [
        c.id,
        c.account_id,
        fees.map((f) => f.city),
        fees.map((f) => toCents(f.delivery_fee)),
        fees.map((f) => (f.return_fee == null ? null : toCents(f.return_fee))),
      ],
      t,
    );
  });
}

/** The carrier's city fees, by city. */
export async function cityFeesOf(sequelize: Sequelize, companyId: number): Promise<CityFee[]> {
  const rows = await select<{ city: string; delivery_fee: number; return_fee: number | null }>(
    sequelize,
    'SELECT city, delivery_fee, return_fee FROM shipping_city_fees WHERE shipping_company_id = $1 ORDER BY lower(city)',
    [companyId],
  );
  return rows.map((r) => ({
    city: r.city,
    delivery_fee: fromCents(r.delivery_fee)!,
    return_fee: fromCents(r.return_fee),
  }));
}
