/**
 * Where to go after sign-in: only a same-origin relative path. Anything else (absolute URLs,
 * protocol-relative `//evil`, backslash tricks, control characters, the auth pages themselves)
 * falls back to the home board, so the login page cannot be used as an open redirect.
 */
export function safeRedirect(value: string | null | undefined, fallback = '/'): string {
  if (!value || value.length > 2000) return fallback;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback;
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return fallback;
  try {
    const url = new URL(value, 'http://placeholder.invalid');
    if (url.origin !== 'http://placeholder.invalid') return fallback;
    if (url.pathname.startsWith('/user/login') || url.pathname.startsWith('/user/mfa') || url.pathname.startsWith('/v1/')) return fallback;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return fallback;
  }
}
