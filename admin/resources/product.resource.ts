import type { ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { tenantReadActions } from './panel-kit.js';
import { serviceActions } from './service-actions.js';
import { checked, nav, optional, text } from './panel-ui.js';
import { accountChoiceProp, chosen } from './account-choice.js';

export function productResource(ctx: AppContext): ResourceWithOptions {
  const { services } = ctx;
  return {
    resource: ctx.models.Product,
    options: {
      navigation: nav.catalogue,
      listProperties: ['sku', 'name', 'price', 'active', 'account_id'],
      editProperties: ['account_id', 'sku', 'name', 'price', 'active'],
      properties: { ...accountChoiceProp },
      actions: {
        ...tenantReadActions('product'),
        ...serviceActions('product', {
          create: (actor, p) =>
            services.catalogue.createProduct(actor, {
              ...chosen(actor, p),
              sku: text(p.sku),
              name: text(p.name),
              price: Number(p.price),
              active: p.active !== 'false' && p.active !== false,
            }),
          update: (actor, id, p) =>
            services.catalogue.updateProduct(actor, id, {
              sku: p.sku as string,
              name: p.name as string,
              price: optional(p.price, Number),
              active: optional(p.active, checked),
            }),
        }),
      },
    },
  };
}
