/**
 * The design tokens of the product, defined once. Two readers:
 *  - the Chakra system of the React islands (src/islands/ui/system.ts builds its tokens from these);
 *  - the server-rendered pages, through the `:root` custom properties of src/styles/global.css, which
 *    tokens.test.ts compares with `cssVariables()` below, so the two cannot drift apart.
 *
 * Plain data, no imports: the Astro bundle, the island bundle and Vitest all load it as is.
 * Why two blues (primary and primaryStrong): docs/adr/0006-design-system.md.
 */

export const COLORS = {
  /** The brand colour: accents (focus rings, borders of selected things, checked radios and checkboxes, active navigation). */
  primary: '#686ee2',
  /**
   * The one darker shade of the primary, for filled buttons and links: white on #686ee2 is only
   * 4.28:1 and #686ee2 on white the same, below the 4.5:1 that text needs; this shade gives 6.2:1.
   */
  primaryStrong: '#4b51c4',
  /** Hover of a filled primary button (darker still). */
  primaryStronger: '#3c419f',
  /** Soft background of selected navigation items and neutral badges. */
  primarySoft: '#eceefc',
  error: '#cb0333',
  /** Hover of a filled danger button. */
  errorStrong: '#a10229',
  errorSoft: '#fde6ea',
  warning: '#fa7552',
  /** Warning text on white (the warning colour itself is 2.6:1). */
  warningText: '#b4441f',
  success: '#2ec395',
  /** Success text on white (the success colour itself is 2.3:1). */
  successText: '#1b7a5c',
  successSoft: '#dff6ee',
  info: '#0f8fa8',
  infoSoft: '#e2f3f6',
  text: '#2a2839',
  muted: '#5f5d70',
  /** Borders of surfaces: cards, tables, dividers. */
  border: '#dcdbe5',
  /** Borders of controls a user types in or checks: 3:1 on white, as non-text contrast requires. */
  controlBorder: '#8a889a',
  surface: '#ffffff',
  page: '#f6f6fb',
} as const;

/** Brand scale for the Chakra palette (500 = primary, 600 = primaryStrong, 700 = primaryStronger). */
export const BRAND_SCALE = {
  50: '#f0f1fd',
  100: '#dfe1fa',
  200: '#c3c6f5',
  300: '#a2a6ef',
  400: '#8489e8',
  500: COLORS.primary,
  600: COLORS.primaryStrong,
  700: COLORS.primaryStronger,
  800: '#2f337c',
  900: '#23265b',
  950: '#16183a',
} as const;

export const FONT_FAMILY = "'Inter Variable', Inter, system-ui, -apple-system, 'Segoe UI', sans-serif";

/** Pixel sizes. */
export const RADII = { sm: 4, md: 8, lg: 12 } as const;
export const HEADING_SIZES = { h1: 34, h2: 30, h3: 24, h4: 20, h5: 16 } as const;
export const FONT_WEIGHT_STRONG = 600;
/** Body text of the pages and of every control. */
export const FONT_SIZE_BODY = 14;
export const FONT_SIZE_SMALL = 12;
/** Height of every button, text input and select (server pages and islands). */
export const CONTROL_HEIGHT = 36;
/** Horizontal padding of a button; text inputs use the smaller one. */
export const BUTTON_PADDING_X = 16;
export const INPUT_PADDING_X = 10;

/** The `:root` custom properties of src/styles/global.css, exactly. */
export function cssVariables(): Record<string, string> {
  return {
    '--color-primary': COLORS.primary,
    '--color-primary-strong': COLORS.primaryStrong,
    '--color-primary-stronger': COLORS.primaryStronger,
    '--color-primary-soft': COLORS.primarySoft,
    '--color-error': COLORS.error,
    '--color-error-strong': COLORS.errorStrong,
    '--color-error-soft': COLORS.errorSoft,
    '--color-warning': COLORS.warning,
    '--color-warning-text': COLORS.warningText,
    '--color-success': COLORS.success,
    '--color-success-text': COLORS.successText,
    '--color-success-soft': COLORS.successSoft,
    '--color-info': COLORS.info,
    '--color-info-soft': COLORS.infoSoft,
    '--color-text': COLORS.text,
    '--color-muted': COLORS.muted,
    '--color-border': COLORS.border,
    '--color-control-border': COLORS.controlBorder,
    '--color-surface': COLORS.surface,
    '--color-page': COLORS.page,
    '--font-body': FONT_FAMILY,
    '--font-size-body': `${FONT_SIZE_BODY}px`,
    '--font-size-small': `${FONT_SIZE_SMALL}px`,
    '--radius': `${RADII.md}px`,
    '--radius-sm': `${RADII.sm}px`,
    '--radius-lg': `${RADII.lg}px`,
    '--h1': `${HEADING_SIZES.h1}px`,
    '--h2': `${HEADING_SIZES.h2}px`,
    '--h3': `${HEADING_SIZES.h3}px`,
    '--h4': `${HEADING_SIZES.h4}px`,
    '--h5': `${HEADING_SIZES.h5}px`,
    '--weight-strong': String(FONT_WEIGHT_STRONG),
    '--control-height': `${CONTROL_HEIGHT}px`,
    '--button-padding-x': `${BUTTON_PADDING_X}px`,
    '--input-padding-x': `${INPUT_PADDING_X}px`,
  };
}
