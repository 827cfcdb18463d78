import { createSystem, defineConfig } from '@chakra-ui/react';
import { chakraBaseConfig } from './chakra-base.ts';

/**
 * The Chakra v3 system built from the product's theme (the same values as the CSS variables in
 * src/styles/global.css, which server-rendered pages use). Primary #686EE2 is the brand colour; solid
 * fills use a darker shade so white text on them keeps a 4.5:1 contrast (accessibility), while
 * #686EE2 itself stays the accent (borders, focus rings, highlights).
 */
const FONT = "'Inter Variable', Inter, system-ui, -apple-system, 'Segoe UI', sans-serif";

const config = defineConfig({
  theme: {
    tokens: {
      colors: {
        brand: {
          50: { value: '#f0f1fd' },
          100: { value: '#dfe1fa' },
          200: { value: '#c3c6f5' },
          300: { value: '#a2a6ef' },
          400: { value: '#8489e8' },
          500: { value: '#686ee2' },
          600: { value: '#4b51c4' },
          700: { value: '#3c419f' },
          800: { value: '#2f337c' },
          900: { value: '#23265b' },
          950: { value: '#16183a' },
        },
        primary: { value: '#686ee2' },
        danger: { value: '#cb0333' },
        caution: { value: '#fa7552' },
        positive: { value: '#2ec395' },
        notice: { value: '#0f8fa8' },
        ink: { value: '#2a2839' },
      },
      fonts: { heading: { value: FONT }, body: { value: FONT } },
      radii: { sm: { value: '4px' }, md: { value: '8px' }, lg: { value: '12px' } },
      fontWeights: { semibold: { value: '600' }, bold: { value: '600' } },
      fontSizes: {
        h1: { value: '34px' },
        h2: { value: '30px' },
        h3: { value: '24px' },
        h4: { value: '20px' },
        h5: { value: '16px' },
      },
    },
    semanticTokens: {
      colors: {
        brand: {
          solid: { value: '{colors.brand.600}' },
          contrast: { value: 'white' },
          fg: { value: '{colors.brand.700}' },
          muted: { value: '{colors.brand.100}' },
          subtle: { value: '{colors.brand.50}' },
          emphasized: { value: '{colors.brand.200}' },
          focusRing: { value: '{colors.brand.500}' },
        },
        fg: {
          DEFAULT: { value: '{colors.ink}' },
          error: { value: '{colors.danger}' },
          warning: { value: '#b4441f' },
          success: { value: '#1b7a5c' },
          info: { value: '{colors.notice}' },
        },
        border: { error: { value: '{colors.danger}' } },
      },
    },
    textStyles: {
      h1: { value: { fontSize: '34px', fontWeight: '600', lineHeight: '1.2' } },
      h2: { value: { fontSize: '30px', fontWeight: '600', lineHeight: '1.2' } },
      h3: { value: { fontSize: '24px', fontWeight: '600', lineHeight: '1.3' } },
      h4: { value: { fontSize: '20px', fontWeight: '600', lineHeight: '1.3' } },
      h5: { value: { fontSize: '16px', fontWeight: '600', lineHeight: '1.4' } },
    },
  },
  globalCss: {
    // Islands sit inside server-rendered pages: do not restyle the page around them.
    'html, body': { colorPalette: 'brand' },
  },
  // The page already has its reset (src/styles/global.css); Chakra's would fight it.
  preflight: false,
});

// Chakra's theme with only the recipes islands use (chakra-base.ts), then ours on top.
export const system = createSystem(chakraBaseConfig, config);

export const THEME = {
  primary: '#686EE2',
  error: '#cb0333',
  warning: '#fa7552',
  success: '#2ec395',
  info: '#0f8fa8',
  text: '#2A2839',
  radius: { sm: 4, md: 8, lg: 12 },
  headingSizes: [34, 30, 24, 20, 16],
  strongWeight: 600,
} as const;
