import type { Locator, Page } from '@playwright/test';
import { expect } from './fixtures.ts';

/** A unique suffix for the test's own forms (slugs are unique across tenants). */
export const unique = (): string => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

/** Adds a field of a widget to a step of the form editor island; returns the field's open panel. */
export async function addField(page: Page, step: Locator, widget: string): Promise<Locator> {
  await step.getByLabel('Kind of field').selectOption(widget);
  await step.getByRole('button', { name: 'Add a field' }).click();
  const panel = page.locator('[data-testid^="field-panel-"]');
  await expect(panel).toHaveCount(1);
  return panel;
}
