import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors/app-error.ts';
import { FILE_RULES, isFileKind } from '../customer-files/files.ts';
import { FORM_OVERHEAD } from '../customer-files/form-upload.ts';
import { stringify } from './respond.ts';
import { MAX_UPLOAD_BYTES } from '../forms/document.ts';

/**
 * Request body limits, enforced by the HTTP server (scripts/server.mjs) before the app sees a byte:
 * without them every JSON endpoint, the public sign-in included, buffered whatever it was sent
 * (3 × 200 MB took the server from 0.8 to 2.1 GB).
 */
const KB = 1024;

/** Sign-in, reset and MFA forms and endpoints: an e-mail, a password, a code, a redirect path. */
export const AUTH_BODY_LIMIT = 16 * KB;
/** Every other JSON body or form post (commands, custom views, error reports, translations). */
export const DEFAULT_BODY_LIMIT = 256 * KB;

const PROFILE_UPLOAD = /^\/[a-z]+\/customer\/profile\/[^/]+\/(files|upload-bureau-pdf|bank-statements)\/?$/;
const FILES_API = /^\/v1\/customers\/[^/]+\/files\/?$/;
const STATEMENTS_API = /^\/v1\/customers\/[^/]+\/bank-statements\/?$/;
/** Admin platform uploads: translation imports (XLSX up to 1 MB) and contract documents (PDF up to 10 MB). */
const TRANSLATIONS_IMPORT = /^\/(v1\/translation-overrides\/import|admin\/platform\/translations)\/?$/;
const CONVERSATION_POSTS =
  /^\/(v1\/conversations(\/[0-9a-f-]{36}\/messages)?|loans\/conversations\/(new|[0-9a-f-]{36}))\/?$/;
const PUBLIC_APPLICATION = /^\/application\/[^/]+\/?$/;
/** Issue 16, data upload: a CSV/XLSX import file up to 20 MB (src/lib/data-import/file.ts), raw or in a form. */
const DATA_UPLOAD = /^\/(v1\/data-imports|admin\/data\/data-upload)\/?$/;
const CONTRACT_DOCUMENT = /^\/(v1\/contracts\/[^/]+\/document|admin\/plan-contracts\/contracts)\/?$/;

/**
 * The most a request to this URL may send. Uploads get their kind's documented limit
 * (src/lib/customer-files/README.md), multipart forms that plus room for boundaries and fields.
 */
export function bodyLimitFor(url: string): number {
  const parsed = new URL(url, 'http://localhost');
  const path = parsed.pathname;
  if (FILES_API.test(path)) {
    const kind = parsed.searchParams.get('kind') ?? 'document';
    return FILE_RULES[isFileKind(kind) ? kind : 'document'].maxBytes;
  }
  if (STATEMENTS_API.test(path)) return FILE_RULES.bank_statement.maxBytes;
  if (TRANSLATIONS_IMPORT.test(path)) return 1024 * KB + FORM_OVERHEAD;
  if (DATA_UPLOAD.test(path)) return 20 * 1024 * KB + FORM_OVERHEAD;
  if (CONTRACT_DOCUMENT.test(path)) return 10 * 1024 * KB + FORM_OVERHEAD;
  const profile = PROFILE_UPLOAD.exec(path);
  if (profile)
    return (
      FILE_RULES[
        profile[1] === 'bank-statements' ? 'bank_statement' : profile[1] === 'files' ? 'document' : 'bureau_pdf'
      ].maxBytes + FORM_OVERHEAD
    );
  // The tenant logo (up to 256 KB) posted by the general-settings page's form or to the API.
  if (path === '/admin/platform/general-settings' || path === '/v1/tenant-settings/logo')
    return DEFAULT_BODY_LIMIT + FORM_OVERHEAD;
  // Issue 13, public application page: a step may post a file; the page refuses above its own form's
  // limit before reading (src/lib/intake/uploads.ts), this is the most any form may set.
  if (PUBLIC_APPLICATION.test(path)) return MAX_UPLOAD_BYTES + FORM_OVERHEAD;
  // Issue 14, conversations: a message may carry up to 5 attachments of 10 MB each.
  if (CONVERSATION_POSTS.test(path)) return 5 * 10 * 1024 * KB + FORM_OVERHEAD;
  if (path.startsWith('/v1/auth/') || path.startsWith('/user/')) return AUTH_BODY_LIMIT;
  return DEFAULT_BODY_LIMIT;
}

function tooLarge(limit: number): AppError {
  const size = limit >= 1024 * KB ? `${Math.round(limit / (1024 * KB))} MB` : `${Math.round(limit / KB)} KB`;
  return new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${size}.`, {
    details: { max_bytes: limit },
  });
}

/**
 * After a 413 the rest of the body is read and dropped for a short while (never kept), then the
 * connection is cut: closing at once with unread bytes makes the kernel reset the connection, and a
 * client still sending would see the reset instead of the answer (what nginx calls lingering close).
 */
const LINGER_MS = 2000;
const LINGER_BYTES = 32 * 1024 * KB;

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The public application page's 413 (issue 13): a plain page in both languages whose link goes back to
 * the form; the draft lives in a path-scoped cookie, so the applicant is back on their step, answers kept.
 */
function applicationTooLarge(url: URL, limit: number): string {
  const lang = url.searchParams.get('lang') === 'fr' ? 'fr' : url.searchParams.get('lang') === 'en' ? 'en' : null;
  const href = escapeHtml(`${url.pathname}${lang ? `?lang=${lang}` : ''}`);
  const size = `${Math.round(limit / (1024 * KB))} MB`;
  return (
    '<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">' +
    `<title>File too large</title><h1>The files sent are too large</h1><p>Together they may not exceed ${size}. ` +
    `Your answers are kept.</p><p><a href="${href}">Back to the form</a></p>` +
    `<h1 lang="fr">Les fichiers envoyés sont trop volumineux</h1><p lang="fr">Ensemble, ils ne peuvent dépasser ${size}. ` +
    `Vos réponses sont conservées.</p><p lang="fr"><a href="${href}">Retour au formulaire</a></p></html>`
  );
}

/** 413 in the one error shape (a plain page for the public application page), then the lingering close above. */
function refuse(req: IncomingMessage, res: ServerResponse, limit: number): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const isApplication = PUBLIC_APPLICATION.test(url.pathname);
  const body = isApplication ? applicationTooLarge(url, limit) : stringify(tooLarge(limit).toJSON());
  res.writeHead(413, {
    'content-type': isApplication ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store, private',
    ...(isApplication
      ? {
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none'; base-uri 'none'; frame-ancestors 'none'",
        }
      : {}),
  });
  res.end(body);
  let dropped = 0;
  const cut = () => {
    clearTimeout(timer);
    req.socket.destroy();
  };
  const timer = setTimeout(cut, LINGER_MS);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) cut();
  });
  req.once('end', cut);
  req.once('close', () => clearTimeout(timer));
  req.resume();
}

/**
 * Admits a request's body or answers 413. A declared Content-Length over the limit is refused at
 * once (Node's parser never delivers more than the declared length, so an admitted one is bounded).
 * A chunked body is counted as it arrives and refused the moment it passes the limit; an admitted one
 * is handed to the app as the buffer read (Astro's adapter takes `req.body` when set), so no body is
 * ever held beyond its limit. Returns false when the request has been answered.
 */
export async function admitBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit = bodyLimitFor(req.url ?? '/'),
): Promise<boolean> {
  const declared = req.headers['content-length'];
  if (declared !== undefined) {
    if (Number(declared) > limit) {
      refuse(req, res, limit);
      return false;
    }
    return true;
  }
  if (req.headers['transfer-encoding'] === undefined) return true;
  return new Promise<boolean>((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) {
        stop();
        chunks.length = 0;
        refuse(req, res, limit);
        resolve(false);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      (req as IncomingMessage & { body?: Buffer }).body = Buffer.concat(chunks, total);
      resolve(true);
    };
    const onError = () => {
      stop();
      resolve(false);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
