import express, {
  type ErrorRequestHandler,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import type { AppContext } from '../../src/app-context.js';
import { AppError, MethodNotAllowedError, RateLimitedError, ValidationError } from '../../src/errors.js';
import { originOf, type FormSource, type FormSubmission } from '../../src/sources/form-intake.service.js';
import { thankYouAddress } from '../../src/sources/source.schemas.js';
import { route } from '../../http/async.js';
import { sendError, sendErrorPage } from '../../http/errors.js';
import { formRateLimits } from '../../http/rate-limit.js';
import { formRefusedPage, formThankYouPage } from '../form-pages.js';

const FORM_PATH = '/intake/forms/:public_key';
/** Where a browser lands after a submission to a source without a thank-you address. */
export const THANK_YOU_PATH = '/intake/thank-you';
/** A form sends a few short fields: 64 kB and 100 fields are far beyond any real one. */
const BODY = { limit: '64kb', parameterLimit: 100 } as const;

const sourceOf = (res: Response) => res.locals.formSource as FormSource;

/** A page's own navigation (a form post), as opposed to a script's request: it gets pages, a script JSON. */
const fromBrowserForm = (req: Request) =>
  /text\/html/i.test(req.headers.accept ?? '') && req.headers['x-requested-with'] !== 'XMLHttpRequest';

/** The page the request came from: the Origin header, else the Referer's origin. */
const pageOrigin = (req: Request) =>
  req.headers.origin !== undefined ? (originOf(req.headers.origin) ?? 'null') : originOf(req.headers.referer);

const UNREADABLE: Record<string, string> = {
  'entity.too.large': 'The form is too large.',
  'parameters.too.many': 'The form has too many fields.',
  'entity.parse.failed': 'The form could not be read (malformed JSON).',
};

/** The body as urlencoded or JSON (anything else reads as no fields); what cannot be read is noted, not thrown. */
function readBody(): RequestHandler {
  const parsers = [express.urlencoded({ extended: false, ...BODY }), express.json({ limit: BODY.limit })];
  return (req, res, next) => {
    const run = (i: number) => {
      if (i === parsers.length) return next();
      parsers[i](req, res, (err?: unknown) => {
        if (err) {
          const type = (err as { type?: string }).type ?? '';
          res.locals.unreadable = UNREADABLE[type] ?? 'The form could not be read.';
          req.body = undefined;
          return next();
        }
        run(i + 1);
      });
    };
    run(0);
  };
}

function submission(req: Request, res: Response): FormSubmission {
  return {
    fields: req.body,
    unreadable: (res.locals.unreadable as string | undefined) ?? null,
    origin: pageOrigin(req),
    clientIp: req.ip ?? null,
  };
}

/** CORS for the source's allowed origins only: never `*`, never another origin. */
function cors(ctx: AppContext): RequestHandler {
  return (req, res, next) => {
    res.vary('Origin');
    const origin = originOf(req.headers.origin);
    if (origin && ctx.services.formIntake.allowsOrigin(sourceOf(res), origin)) {
      res.set('Access-Control-Allow-Origin', origin);
      if (req.method === 'OPTIONS')
        res.set({
          'Access-Control-Allow-Methods': 'POST',
          'Access-Control-Allow-Headers': 'Content-Type, Accept, X-Requested-With',
          'Access-Control-Max-Age': '600',
        });
    }
    next();
  };
}

/** A refusal: logged (a rate limit's here, the others by the service), then a page for a browser, JSON otherwise. */
function refusal(ctx: AppContext): ErrorRequestHandler {
  return (err, req, res, next) => {
    const source = res.locals.formSource as FormSource | undefined;
    const logged =
      err instanceof RateLimitedError && source
        ? ctx.services.formIntake.rateLimited(source, submission(req, res), err)
        : Promise.resolve();
    logged
      .catch((e) => ctx.logger.warn({ err: e }, 'form intake log failed'))
      .then(() => {
        if (!(err instanceof AppError) || res.headersSent) return next(err);
        if (!fromBrowserForm(req)) return sendError(res, err);
        const problems = err instanceof ValidationError ? Object.values(err.errors).flat() : [err.message];
        const title = err instanceof ValidationError ? 'Please check the form' : 'The form was not sent';
        sendErrorPage(res, err, formRefusedPage({ title, problems, back: req.headers.referer }));
      });
  };
}

/**
 * The public landing-page form endpoint (docs/lead-sources.md, "The form endpoint"): no bearer token; the source by
 * its public key, CORS for its allowed origins, the body (64 kB), the per-IP and per-source budgets, then the service.
 */
export function createFormIntakeRoutes(ctx: AppContext): Router {
  const r = express.Router();
  const forms = ctx.services.formIntake;
  const findSource = route(async (req, res, next) => {
    res.locals.formSource = await forms.source(req.params.public_key);
    next();
  });
  const limits = formRateLimits({
    perIp: ctx.config.forms.ratePerIp,
    perSource: ctx.config.forms.ratePerSource,
    redisUrl: ctx.config.redisUrl,
    sourceOf: (req) => sourceOf(req.res!).id,
    refused: () => ctx.metrics.rateLimited.inc({ limiter: 'form' }),
  });
  r.get(THANK_YOU_PATH, (_req, res) => {
    res.type('html').send(formThankYouPage());
  });
  r.options(FORM_PATH, findSource, cors(ctx), (_req, res) => {
    res.status(204).end();
  });
  r.post(
    FORM_PATH,
    findSource,
    cors(ctx),
    readBody(),
    ...limits,
    route(async (req, res) => {
      const source = sourceOf(res);
      const { reference } = await forms.submit(source, submission(req, res));
      if (!fromBrowserForm(req)) return void res.status(201).json({ message: 'Lead created.', reference });
      const own = thankYouAddress(source.thank_you_url);
      res
        .status(303)
        .location(own ?? req.baseUrl + THANK_YOU_PATH)
        .end();
    }),
  );
  r.all(FORM_PATH, (_req, _res, next) => next(new MethodNotAllowedError()));
  r.use(FORM_PATH, refusal(ctx));
  return r;
}
