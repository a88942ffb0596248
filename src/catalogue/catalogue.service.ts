import Joi from 'joi';
import { Op } from 'sequelize';
import { newRowAccount } from '../chosen-account.js';
import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { accountScope, authorize } from '../policy.js';
import { validate } from '../validation.js';
import { likeExact } from '../like-pattern.js';
import type { Product } from './product.model.js';

const productCreateSchema = Joi.object({
  account_id: Joi.number().integer().positive(),
  sku: Joi.string().trim().min(1).max(100).required(),
  name: Joi.string().trim().min(1).max(200).required(),
  price: Joi.number().min(0).max(999_999).precision(2).required(),
  active: Joi.boolean().default(true),
});
const productUpdateSchema = Joi.object({
  sku: Joi.string().trim().min(1).max(100),
  name: Joi.string().trim().min(1).max(200),
  price: Joi.number().min(0).max(999_999).precision(2),
  active: Joi.boolean(),
});
export interface ProductInput {
  account_id?: number;
  sku: string;
  name: string;
  price: number;
  active?: boolean;
}

export function productView(p: Product) {
  return { id: p.id, account_id: p.account_id, sku: p.sku, name: p.name, price: Number(p.price), active: p.active };
}

export function createCatalogueService(core: Core) {
  const { Product, City } = core.models;

  return {
    async createProduct(actor: Actor, input: ProductInput) {
      const v = validate<ProductInput>(productCreateSchema, input);
      const account_id = await newRowAccount(core.db.sequelize, actor, v.account_id);
      authorize(actor, 'create', 'product', { account_id });
      if (await Product.findOne({ where: { account_id, sku: v.sku } })) {
        throw ValidationError.single('sku', 'The sku has already been taken.');
      }
      return productView(await Product.create({ ...v, account_id }));
    },

    async updateProduct(actor: Actor, id: number, input: Partial<ProductInput>) {
      const v = validate<Partial<ProductInput>>(productUpdateSchema, input);
      const p = await Product.findOne({ where: { id, ...accountScope(actor) } });
      if (!p) throw new NotFoundError();
      authorize(actor, 'update', 'product', p);
      if (v.sku && v.sku !== p.sku && (await Product.findOne({ where: { account_id: p.account_id, sku: v.sku } }))) {
        throw ValidationError.single('sku', 'The sku has already been taken.');
      }
      return productView(await p.update(v));
    },

    async listProducts(actor: Actor, opts: { accountId?: number; activeOnly?: boolean } = {}) {
      authorize(actor, 'viewAny', 'product');
      const rows = await Product.findAll({
        where: { ...accountScope(actor, opts.accountId), ...(opts.activeOnly ? { active: true } : {}) },
        order: [
          ['account_id', 'ASC'],
          ['sku', 'ASC'],
        ],
      });
      return rows.map(productView);
    },

    async listCities(actor: Actor) {
      authorize(actor, 'viewAny', 'city');
      return (await City.findAll({ order: [['name', 'ASC']] })).map((c) => ({ id: c.id, name: c.name }));
    },

    /**
     * The city of the list a free-text city names (case and outer spaces aside), or null: a lead that came in with
     * `city: "casablanca"` (REST, import, forms, the demo) has no city_id, yet its edit form shows it chosen.
     */
    async cityNamed(actor: Actor, name: unknown) {
      authorize(actor, 'viewAny', 'city');
      const text = typeof name === 'string' ? name.trim() : '';
      if (text.length < 2 || text.length > 100) return null;
      const c = await City.findOne({ where: { name: { [Op.iLike]: likeExact(text) } }, order: [['id', 'ASC']] });
      return c ? { id: c.id, name: c.name } : null;
    },

    async createCity(actor: Actor, name: string) {
      authorize(actor, 'create', 'city');
      const v = validate<{ name: string }>(Joi.object({ name: Joi.string().trim().min(2).max(100).required() }), {
        name,
      });
      if (await City.findOne({ where: { name: { [Op.iLike]: v.name } } }))
        throw ValidationError.single('name', 'The name has already been taken.');
      const c = await City.create(v);
      return { id: c.id, name: c.name };
    },
  };
}
export type CatalogueService = ReturnType<typeof createCatalogueService>;
