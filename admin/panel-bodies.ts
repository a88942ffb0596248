import busboy from 'busboy';
import type { Request, RequestHandler } from 'express';
import { ValidationError } from '../src/errors.js';
import { setOwn } from '../src/validation.js';

/** AdminJS record forms post a few dozen text fields; a lead with its products a few hundred. */
export const PANEL_FORM_LIMITS = { bytes: 1024 * 1024, fields: 1000, fieldNameBytes: 200 } as const;

const tooLarge = () =>
  Object.assign(new Error('The request body is too large.'), { status: 413, type: 'entity.too.large' });

const unsupported = () =>
  Object.assign(new Error('Unsupported content type.'), { status: 415, type: 'unsupported.media.type' });

/** A request with a body, as type-is defines it (a Transfer-Encoding, or a Content-Length other than 0). */
function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || !['0', undefined].includes(req.headers['content-length']);
}

/** Hands the fields to AdminJS as express-formidable would (`req.fields`), marked parsed so it never parses. */
function handOver(req: Request, fields: Record<string, string>): void {
  Object.assign(req, { fields, files: {}, express_formidable: { parsed: true } });
}

/**
 * The panel's form and multipart bodies, read here instead of by AdminJS's express-formidable, which writes every file
 * part to the OS temp dir (200 MB each) and never deletes it. Nothing in the panel uploads files: a file part is
 * refused (422) before any of it is stored, and the text fields are bounded in count, name length and total size
 * (413), counted while streaming. Fields keep formidable's shape: flat names, the last value of a repeated name wins.
 * Any other body type is 415. JSON was read before (panelJsonBodies).
 */
export const panelFormBodies: RequestHandler = (req, _res, next) => {
  if ((req as Request & { express_formidable?: { parsed?: boolean } }).express_formidable?.parsed) return next();
  let done = false;
  let received = 0;
  if (!hasBody(req)) {
    handOver(req, {});
    return next();
  }
  if (!req.is(['multipart/form-data', 'application/x-www-form-urlencoded'])) return refuse(unsupported());
  let form: busboy.Busboy;
  try {
    form = busboy({
      headers: req.headers,
      limits: {
        files: 0,
        fields: PANEL_FORM_LIMITS.fields,
        parts: PANEL_FORM_LIMITS.fields,
        fieldSize: PANEL_FORM_LIMITS.bytes,
        fieldNameSize: PANEL_FORM_LIMITS.fieldNameBytes,
      },
    });
  } catch {
    // a multipart type without its boundary
    return refuse(Object.assign(new Error('Malformed form body.'), { status: 400 }));
  }
  const fields: Record<string, string> = {};
  function refuse(err: Error) {
    if (done) return;
    done = true;
    req.unpipe();
    // answered at once; the rest of the body is read and dropped (closing instead would cut the client mid-send)
    req.resume();
    next(err);
  }
  req.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > PANEL_FORM_LIMITS.bytes) refuse(tooLarge());
  });
  form.on('field', (name, value, info) => {
    if (info.nameTruncated || info.valueTruncated) return refuse(tooLarge());
    // an own key whatever its name, so the input rule after this (http/input-guard.ts) refuses a `__proto__` field
    setOwn(fields, name, value);
  });
  form.on('file', (name, stream) => {
    stream.resume();
    refuse(ValidationError.single(name, 'The panel takes no file uploads.'));
  });
  form.on('filesLimit', () => refuse(ValidationError.single('file', 'The panel takes no file uploads.')));
  form.on('fieldsLimit', () => refuse(tooLarge()));
  form.on('partsLimit', () => refuse(tooLarge()));
  form.on('error', () => refuse(Object.assign(new Error('Malformed form body.'), { status: 400 })));
  form.on('close', () => {
    if (done) return;
    done = true;
    handOver(req, fields);
    next();
  });
  req.pipe(form);
};
