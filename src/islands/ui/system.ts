import { createSystem, defineConfig } from '@chakra-ui/react';
import { chakraBaseConfig } from './chakra-base.ts';
import {
  BRAND_SCALE,
  BUTTON_PADDING_X,
  COLORS,
  CONTROL_HEIGHT,
  FONT_FAMILY,
  FONT_SIZE_BODY,
  FONT_WEIGHT_STRONG,
  HEADING_SIZES,
  INPUT_PADDING_X,
  RADII,
} from '#lib/design/tokens.ts';

/**
 * The Chakra v3 system of the islands, built from the design tokens (src/lib/design/tokens.ts), the
 * same module that the server pages' CSS variables come from. The recipes below only retune
 * Chakra's own to the house controls of src/styles/global.css (heights, paddings, radii, colours),
 * so a button or an input looks the same in an island and on a server page:
 *  - solid brand = primary button (filled with the strong shade: white on #686EE2 is below 4.5:1);
 *  - outline (gray palette) = secondary; outline or solid in the red palette = danger; ghost = ghost;
 *  - radii l1/l2/l3 = small 4, default 8, large 12 (Chakra's controls use l2, dialogs l3).
 * Why the accent is #686EE2 while filled buttons use a darker shade: docs/adr/0006-design-system.md.
 */
const px = (n: number) => ({ value: `${n}px` });
const color = (value: string) => ({ value });

const config = defineConfig({
  theme: {
    tokens: {
      colors: {
        brand: Object.fromEntries(Object.entries(BRAND_SCALE).map(([step, value]) => [step, color(value)])),
        primary: color(COLORS.primary),
        danger: color(COLORS.error),
        caution: color(COLORS.warning),
        positive: color(COLORS.success),
        notice: color(COLORS.info),
        ink: color(COLORS.text),
      },
      fonts: { heading: color(FONT_FAMILY), body: color(FONT_FAMILY) },
      radii: { sm: px(RADII.sm), md: px(RADII.md), lg: px(RADII.lg) },
      fontWeights: { semibold: color(String(FONT_WEIGHT_STRONG)), bold: color(String(FONT_WEIGHT_STRONG)) },
      fontSizes: {
        h1: px(HEADING_SIZES.h1),
        h2: px(HEADING_SIZES.h2),
        h3: px(HEADING_SIZES.h3),
        h4: px(HEADING_SIZES.h4),
        h5: px(HEADING_SIZES.h5),
      },
    },
    semanticTokens: {
      radii: { l1: px(RADII.sm), l2: px(RADII.md), l3: px(RADII.lg) },
      colors: {
        bg: {
          DEFAULT: color(COLORS.surface),
          subtle: color(COLORS.page),
          panel: color(COLORS.surface),
          error: color(COLORS.errorSoft),
          success: color(COLORS.successSoft),
          info: color(COLORS.infoSoft),
        },
        fg: {
          DEFAULT: color(COLORS.text),
          muted: color(COLORS.muted),
          error: color(COLORS.error),
          warning: color(COLORS.warningText),
          success: color(COLORS.successText),
          info: color(COLORS.info),
        },
        border: {
          DEFAULT: color(COLORS.border),
          // Controls one types in or checks (inputs, selects, radio rings): 3:1 on white.
          emphasized: color(COLORS.controlBorder),
          error: color(COLORS.error),
        },
        brand: {
          solid: color(COLORS.primaryStrong),
          hover: color(COLORS.primaryStronger),
          contrast: color('#ffffff'),
          fg: color(COLORS.primaryStrong),
          muted: color(BRAND_SCALE[100]),
          subtle: color(COLORS.primarySoft),
          emphasized: color(BRAND_SCALE[200]),
          focusRing: color(COLORS.primary),
          border: color(COLORS.primary),
        },
        // The red palette is the danger kind: the theme's error colour.
        red: {
          solid: color(COLORS.error),
          hover: color(COLORS.errorStrong),
          contrast: color('#ffffff'),
          fg: color(COLORS.error),
          muted: color(COLORS.errorSoft),
          subtle: color(COLORS.errorSoft),
          focusRing: color(COLORS.error),
          border: color(COLORS.error),
        },
        // The gray palette is the secondary kind: text colour on white, the surface border, the accent on hover.
        gray: {
          fg: color(COLORS.text),
          subtle: color(COLORS.primarySoft),
          border: color(COLORS.border),
          focusRing: color(COLORS.primary),
          hover: color(COLORS.primary),
        },
      },
    },
    textStyles: {
      h1: { value: { fontSize: `${HEADING_SIZES.h1}px`, fontWeight: String(FONT_WEIGHT_STRONG), lineHeight: '1.2' } },
      h2: { value: { fontSize: `${HEADING_SIZES.h2}px`, fontWeight: String(FONT_WEIGHT_STRONG), lineHeight: '1.2' } },
      h3: { value: { fontSize: `${HEADING_SIZES.h3}px`, fontWeight: String(FONT_WEIGHT_STRONG), lineHeight: '1.3' } },
      h4: { value: { fontSize: `${HEADING_SIZES.h4}px`, fontWeight: String(FONT_WEIGHT_STRONG), lineHeight: '1.3' } },
      h5: { value: { fontSize: `${HEADING_SIZES.h5}px`, fontWeight: String(FONT_WEIGHT_STRONG), lineHeight: '1.4' } },
    },
    recipes: {
      button: {
        base: {
          fontWeight: 'semibold',
          fontFamily: 'body',
          borderRadius: 'l2',
          textDecoration: 'none',
          focusRingColor: 'brand.focusRing',
        },
        variants: {
          size: {
            sm: {
              h: `${CONTROL_HEIGHT}px`,
              minW: `${CONTROL_HEIGHT}px`,
              px: `${BUTTON_PADDING_X}px`,
              textStyle: 'sm',
              fontSize: `${FONT_SIZE_BODY}px`,
            },
            md: {
              h: `${CONTROL_HEIGHT}px`,
              minW: `${CONTROL_HEIGHT}px`,
              px: `${BUTTON_PADDING_X}px`,
              textStyle: 'sm',
              fontSize: `${FONT_SIZE_BODY}px`,
            },
          },
          variant: {
            solid: {
              bg: 'colorPalette.solid',
              borderColor: 'colorPalette.solid',
              _hover: { bg: 'colorPalette.hover', borderColor: 'colorPalette.hover' },
              _expanded: { bg: 'colorPalette.hover' },
            },
            outline: {
              bg: 'bg',
              color: 'colorPalette.fg',
              borderColor: 'colorPalette.border',
              '--outline-color': 'colors.colorPalette.border',
              _hover: { bg: 'colorPalette.subtle', borderColor: 'colorPalette.hover' },
              _expanded: { bg: 'colorPalette.subtle' },
            },
            ghost: { color: 'brand.fg', _hover: { bg: 'brand.subtle' }, _expanded: { bg: 'brand.subtle' } },
          },
        },
      },
      input: {
        base: { fontFamily: 'body', borderRadius: 'l2' },
        variants: {
          size: { md: { px: `${INPUT_PADDING_X}px`, textStyle: 'sm', '--input-height': `${CONTROL_HEIGHT}px` } },
          variant: { outline: { bg: 'bg', borderColor: 'border.emphasized' } },
        },
      },
      textarea: {
        base: { fontFamily: 'body', borderRadius: 'l2' },
        variants: {
          size: { md: { px: `${INPUT_PADDING_X}px`, textStyle: 'sm' } },
          variant: { outline: { bg: 'bg', borderColor: 'border.emphasized' } },
        },
      },
    },
    // Slot recipes merge into Chakra's item by item: an empty `slots` keeps Chakra's list of parts.
    slotRecipes: {
      nativeSelect: {
        slots: [],
        base: { field: { fontFamily: 'body', borderRadius: 'l2' } },
        variants: {
          size: {
            md: {
              field: { textStyle: 'sm', '--select-field-height': `${CONTROL_HEIGHT}px`, ps: `${INPUT_PADDING_X}px` },
            },
          },
          variant: { outline: { field: { bg: 'bg', borderColor: 'border.emphasized' } } },
        },
      },
      radioGroup: {
        slots: [],
        // An unchecked radio keeps a visible ring (the control border); checked fills with the accent.
        base: { item: { fontFamily: 'body', textStyle: 'sm' } },
        variants: {
          variant: {
            solid: {
              itemControl: {
                bg: 'bg',
                borderWidth: '1px',
                borderColor: 'border.emphasized',
                _checked: { bg: 'brand.focusRing', borderColor: 'brand.focusRing', color: 'white' },
              },
            },
          },
        },
      },
      dialog: {
        slots: [],
        base: {
          content: { fontFamily: 'body', fontSize: `${FONT_SIZE_BODY}px`, color: 'fg', borderRadius: 'l3' },
          title: { fontSize: `${HEADING_SIZES.h4}px`, fontWeight: 'semibold', lineHeight: '1.3', margin: 0 },
        },
      },
      table: {
        slots: [],
        base: {
          root: { fontFamily: 'body', bg: 'bg' },
          columnHeader: { color: 'fg.muted', bg: 'bg.subtle', fontWeight: 'semibold', whiteSpace: 'nowrap' },
          cell: { borderColor: 'border' },
        },
      },
    },
  },
  globalCss: {
    // Islands sit inside server-rendered pages: do not restyle the page around them.
    'html, body': { colorPalette: 'brand' },
  },
  // The page already has its reset (src/styles/global.css, layer page-base); Chakra's would fight it.
  preflight: false,
});

// Chakra's theme with only the recipes islands use (chakra-base.ts), then ours on top.
export const system = createSystem(chakraBaseConfig, config);
