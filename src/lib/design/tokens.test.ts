import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BRAND_SCALE, COLORS, cssVariables } from './tokens.ts';

/** The custom properties of the stylesheet's `:root` block, in order. */
function rootVariables(css: string): Record<string, string> {
  const block = /:root\s*\{([^}]*)\}/.exec(css)?.[1] ?? '';
  return Object.fromEntries(
    block
      .split(';')
      .map((line) => line.replace(/\/\*.*?\*\//g, '').trim())
      .filter(Boolean)
      .map((line) => {
        const at = line.indexOf(':');
        return [line.slice(0, at).trim(), line.slice(at + 1).trim()];
      }),
  );
}

/** WCAG relative luminance contrast of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const luminance = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map((i) => {
      const c = parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

describe('design tokens', () => {
  it('global.css :root holds exactly the tokens, with the same values', () => {
    const css = fs.readFileSync(path.resolve(import.meta.dirname, '../../styles/global.css'), 'utf8');
    expect(rootVariables(css)).toEqual(cssVariables());
  });

  it('keeps the theme colours of the product', () => {
    expect(COLORS).toMatchObject({
      primary: '#686ee2',
      error: '#cb0333',
      warning: '#fa7552',
      success: '#2ec395',
      info: '#0f8fa8',
      text: '#2a2839',
    });
    expect(BRAND_SCALE[500]).toBe(COLORS.primary);
    expect(BRAND_SCALE[600]).toBe(COLORS.primaryStrong);
  });

  it('the primary is an accent only: too light for text, while its strong shade carries text both ways', () => {
    // Why the second shade exists (docs/adr/0006-design-system.md).
    expect(contrast('#ffffff', COLORS.primary)).toBeLessThan(4.5);
    expect(contrast('#ffffff', COLORS.primary)).toBeGreaterThanOrEqual(3);
    expect(contrast('#ffffff', COLORS.primaryStrong)).toBeGreaterThanOrEqual(4.5);
    expect(contrast(COLORS.primarySoft, COLORS.primaryStrong)).toBeGreaterThanOrEqual(4.5);
    expect(contrast('#ffffff', COLORS.error)).toBeGreaterThanOrEqual(4.5);
    expect(contrast('#ffffff', COLORS.text)).toBeGreaterThanOrEqual(4.5);
    expect(contrast('#ffffff', COLORS.muted)).toBeGreaterThanOrEqual(4.5);
    expect(contrast('#ffffff', COLORS.successText)).toBeGreaterThanOrEqual(4.5);
    expect(contrast('#ffffff', COLORS.warningText)).toBeGreaterThanOrEqual(4.5);
    expect(contrast('#ffffff', COLORS.controlBorder)).toBeGreaterThanOrEqual(3);
  });
});
