import { defaultBaseConfig, mergeConfigs } from '@chakra-ui/react';
import {
  alertSlotRecipe,
  animationStyles,
  badgeRecipe,
  breakpoints,
  buttonRecipe,
  codeRecipe,
  cssVarsPrefix,
  cssVarsRoot,
  dialogSlotRecipe,
  fieldSlotRecipe,
  globalCss,
  headingRecipe,
  inputRecipe,
  keyframes,
  layerStyles,
  linkRecipe,
  nativeSelectSlotRecipe,
  progressSlotRecipe,
  radioGroupSlotRecipe,
  semanticTokens,
  spinnerRecipe,
  tableSlotRecipe,
  textareaRecipe,
  textStyles,
  tokens,
} from '@chakra-ui/react/theme';

/**
 * Chakra's own theme (its tokens, semantic tokens, text, layer and animation styles, global styles)
 * with only the component recipes our islands render. Chakra's `defaultConfig` carries the recipes of
 * its ~90 components, which made every island page download some 40 KB of styles for date pickers,
 * colour pickers, tree views and carousels nobody shows; the bundler keeps only what is imported here.
 *
 * A component whose recipe is missing still renders, but unstyled. So when an island starts using
 * another Chakra component, add its recipe below and its name to ISLAND_COMPONENTS;
 * src/islands/ui/chakra-base.test.ts fails on a component imported by an island that is not listed.
 */
export const RECIPES = {
  badge: badgeRecipe,
  button: buttonRecipe,
  code: codeRecipe,
  heading: headingRecipe,
  input: inputRecipe,
  link: linkRecipe,
  spinner: spinnerRecipe,
  textarea: textareaRecipe,
};

export const SLOT_RECIPES = {
  alert: alertSlotRecipe,
  dialog: dialogSlotRecipe,
  field: fieldSlotRecipe,
  nativeSelect: nativeSelectSlotRecipe,
  progress: progressSlotRecipe,
  radioGroup: radioGroupSlotRecipe,
  table: tableSlotRecipe,
};

/**
 * Every component islands import from '@chakra-ui/react', with the recipe keys it styles itself
 * with (none for layout primitives and plumbing). `Text` asks for a `text` recipe that Chakra's
 * theme does not define either.
 */
export const ISLAND_COMPONENTS: Record<string, readonly string[]> = {
  Alert: ['alert'],
  Badge: ['badge'],
  Box: [],
  Button: ['button', 'spinner'],
  ChakraProvider: [],
  Code: ['code'],
  Dialog: ['dialog'],
  Field: ['field'],
  HStack: [],
  Heading: ['heading'],
  Input: ['input'],
  Link: ['link'],
  NativeSelect: ['nativeSelect'],
  Portal: [],
  Progress: ['progress'],
  RadioGroup: ['radioGroup'],
  Spinner: ['spinner'],
  Stack: [],
  Table: ['table'],
  Text: [],
  Textarea: ['textarea'],
  VStack: [],
};

export const chakraBaseConfig = mergeConfigs(defaultBaseConfig, {
  cssVarsPrefix,
  cssVarsRoot,
  globalCss,
  theme: {
    breakpoints,
    keyframes,
    tokens,
    semanticTokens,
    recipes: RECIPES,
    slotRecipes: SLOT_RECIPES,
    textStyles,
    layerStyles,
    animationStyles,
  },
});
