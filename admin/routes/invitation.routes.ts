import express, { type Request, type Response, type Router } from 'express';
import { INVITATION_GONE, INVITATION_TAKEN } from '../../src/auth/invitations.js';
import type { AppContext } from '../../src/app-context.js';
import { ConflictError, GoneError, ValidationError } from '../../src/errors.js';
import { sendErrorPage } from '../../http/errors.js';
import { route } from '../../http/async.js';
import { wantsJson, type createCsrf } from '../auth.js';
import { perIpThrottle } from './auth.routes.js';
import { invitationPage } from '../views/pages.js';
import { requestLanguage, translate } from '../locale-text.js';

type Csrf = ReturnType<typeof createCsrf>;

/** Acceptances per client IP, with the reset requests' budget (admin/routes/auth.routes.ts perIpThrottle). */
const invitationThrottle = (ctx: AppContext) =>
  perIpThrottle(ctx, {
    limiter: 'invitation',
    message: 'Too many attempts. Please try again later.',
    page: (req) => {
      const lang = requestLanguage(req);
      return invitationPage({ csrf: '', valid: false, error: translate(lang, 'site.invitation.tooMany'), lang });
    },
  });

const tokenOf = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * The invitation link of a seller's "add a login" (src/auth/add-login.ts): GET shows the account, the email and
 * the password form; POST creates the login, or tells the mailbox owner that the address already has one.
 */
export function createInvitationRoutes(ctx: AppContext, csrf: Csrf): Router {
  const r = express.Router();
  const invitations = ctx.services.invitations;

  // the form, or its 410 page; `refusal` (a password that breaks the rules) is shown above the form with its status
  const showForm = async (req: Request, res: Response, token: string, refusal?: ValidationError) => {
    const invitation = await invitations.find(token);
    const valid = !!invitation;
    const lang = requestLanguage(req);
    const form = { csrf: csrf.token(req, res), token, valid, error: refusal?.message, invitation, lang };
    const page = invitationPage(form);
    if (!invitation) return sendErrorPage(res, new GoneError(INVITATION_GONE), page);
    if (refusal) return sendErrorPage(res, refusal, page);
    res.type('html').send(page);
  };

  r.get(
    '/invitation',
    route(async (req, res) => showForm(req, res, tokenOf(req.query.token))),
  );

  r.post(
    '/invitation',
    csrf.protect,
    invitationThrottle(ctx),
    route(async (req, res) => {
      const token = tokenOf(req.body?.token);
      let outcome: 'accepted' | 'taken';
      try {
        const answer = await invitations.accept(token, req.body ?? {});
        // its sender may no longer make that login: the link is simply no longer valid
        if (answer === 'withdrawn') throw new GoneError(INVITATION_GONE);
        outcome = answer;
      } catch (err) {
        if (wantsJson(req)) throw err;
        if (err instanceof ValidationError) return showForm(req, res, token, err);
        if (err instanceof GoneError)
          return sendErrorPage(res, err, invitationPage({ csrf: '', valid: false, lang: requestLanguage(req) }));
        throw err;
      }
      if (outcome === 'taken') {
        const taken = new ConflictError(INVITATION_TAKEN);
        if (wantsJson(req)) throw taken;
        const lang = requestLanguage(req);
        const error = translate(lang, 'site.invitation.taken');
        return sendErrorPage(res, taken, invitationPage({ csrf: '', valid: false, error, lang }));
      }
      if (wantsJson(req)) return res.json({ message: 'Your login is ready. Log in with it.' });
      res.redirect(303, '/login');
    }),
  );
  return r;
}
