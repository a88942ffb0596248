import type { ResourceWithOptions } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { tenantReadActions } from './panel-kit.js';
import { serviceActions } from './service-actions.js';
import { nav, text } from './panel-ui.js';

export function cityResource(ctx: AppContext): ResourceWithOptions {
  const { services } = ctx;
  return {
    resource: ctx.models.City,
    options: {
      navigation: nav.catalogue,
      listProperties: ['name'],
      editProperties: ['name'],
      actions: {
        // search too (the city select of the lead form): every action through the policy
        ...tenantReadActions('city'),
        ...serviceActions('city', { create: (actor, p) => services.catalogue.createCity(actor, text(p.name)) }),
      },
    },
  };
}
