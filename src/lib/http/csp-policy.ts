/**
 * The Content-Security-Policy of every HTML answer, in the shape astro.config.mjs gives to Astro's
 * built-in CSP (`security.csp`). Kept in a module with no run-time imports so the config can load it.
 */

/** The directives we set, each as `name value`; Astro's config type accepts exactly this shape. */
type CspDirective = `${
  | 'default-src'
  | 'img-src'
  | 'font-src'
  | 'connect-src'
  | 'object-src'
  | 'base-uri'
  | 'frame-ancestors'
  | 'form-action'} ${string}`;

/** Every directive besides script-src and style-src (Astro renders those two with its hashes). */
export const CSP_DIRECTIVES: CspDirective[] = [
  "default-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
];

/** Bundled scripts come from our origin; inline ones only by the hash Astro computes at build. */
export const CSP_SCRIPT_RESOURCES = ["'self'"];

/**
 * Emotion (Chakra UI) inserts <style> elements at run time, so styles allow 'unsafe-inline' (Astro
 * then leaves hashes off style-src, which would otherwise cancel it). Style injection cannot run code.
 */
export const CSP_STYLE_RESOURCES = ["'self'", "'unsafe-inline'"];
