import type { TFunction } from 'i18next';
import { AppError } from '../errors/app-error.ts';

/**
 * Turns the identity errors (English AppError messages) into the page's language. The domain throws
 * one English message and structured details; the auth pages render them through here.
 */
export function authErrorText(t: TFunction, error: unknown): string {
  if (!(error instanceof AppError)) return t('auth:errors.unexpected');
  const reason = error.details?.reason;
  switch (reason) {
    case 'too_short':
      return t('auth:errors.tooShort', { min: error.details?.min_length });
    case 'too_long':
      return t('auth:errors.tooLong');
    case 'common':
      return strengthText(t, 'auth:errors.common', error.details);
    case 'weak':
      return strengthText(t, 'auth:errors.weak', error.details);
    case 'personal':
      return t('auth:errors.personal');
    case 'breached':
      return t('auth:errors.breached');
    case 'reused':
      return t('auth:errors.reused');
  }
  if (error.code === 'TOO_MANY_REQUESTS') {
    const seconds = Number(error.details?.retry_after ?? 60);
    return t('auth:errors.throttled', { minutes: Math.max(1, Math.ceil(seconds / 60)) });
  }
  if (error.field === 'current_password') return t('auth:errors.currentWrong');
  if (error.field === 'token') return t('auth:errors.invalidLink');
  if (error.field === 'code')
    return /already used/.test(error.message) ? t('auth:errors.codeUsed') : t('auth:errors.codeInvalid');
  if (/expired\. Sign in again/.test(error.message)) return t('auth:errors.mfaExpired');
  if (error.code === 'UNAUTHORIZED' && /Incorrect email or password/.test(error.message))
    return t('auth:errors.badCredentials');
  if (error.status < 500) return error.message;
  return t('auth:errors.unexpected');
}

/**
 * Why a password was refused and how to fix it: the verdict, the estimator's warning and suggestions
 * (src/lib/auth/password-strength.ts keys, translated from auth:passwordStrength.*), then the general advice.
 */
function strengthText(t: TFunction, key: string, details: Record<string, unknown> | undefined): string {
  const known = (group: string, value: unknown) =>
    typeof value === 'string' &&
    /^[a-zA-Z0-9]+$/.test(value) &&
    t(`auth:passwordStrength.${group}.${value}`, { defaultValue: '' });
  const parts = [t(key), known('warnings', details?.warning)];
  const suggestions = Array.isArray(details?.suggestions) ? details.suggestions : [];
  for (const suggestion of suggestions) parts.push(known('suggestions', suggestion));
  parts.push(t('auth:passwordStrength.howToFix'));
  return parts.filter(Boolean).join(' ');
}

/**
 * For the JSON endpoints that set a password: the same refusal with its message in the caller's
 * language (the code, field and details stay, so a client can still read the reason).
 */
export function localizePasswordError(t: TFunction, error: unknown): unknown {
  if (!(error instanceof AppError) || typeof error.details?.reason !== 'string') return error;
  return new AppError(error.code, authErrorText(t, error), {
    field: error.field,
    details: error.details,
    internal: error.internal,
    cause: error,
  });
}

/** Messages other pages send to the login page as ?message=… : the known ones are translated. */
const KNOWN_MESSAGES: Record<string, string> = {
  'You are not authorized to access the board.': 'auth:messages.notAuthorized',
  signed_out: 'auth:messages.signedOut',
  session_expired: 'auth:messages.sessionExpired',
  password_reset: 'auth:messages.passwordReset',
  sso_failed: 'auth:messages.ssoFailed',
};

/** The text to show for a ?message= value: translated when known, otherwise the text itself, shortened. */
export function redirectMessageText(t: TFunction, message: string | null): string | null {
  if (!message) return null;
  const key = KNOWN_MESSAGES[message];
  return key ? t(key) : message.slice(0, 200);
}
