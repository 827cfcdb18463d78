import { expect, test, type Browser, type Page, type TestInfo } from '@playwright/test';
import { BRAND_SCALE, COLORS, RADII } from '#lib/design/tokens.ts';
import { signInThroughForm as signIn } from './support/fixtures.ts';

// One look: the server pages and the React islands share one design system. For each main page kind,
// at a common laptop size and at a small one, this takes a screenshot (attached to the report, not
// compared) and checks, on computed styles, that every button, input, select, textarea and radio of
// the page and of its islands uses Inter and only colours and radii of the design tokens, that
// unchecked radios have a visible ring, and that nothing pushes the page wider than the window
// except inside a scroll container.

const VIEWPORTS = [
  { name: '1366x768', width: 1366, height: 768 },
  { name: '1024x640', width: 1024, height: 640 },
] as const;

/** Every colour a control may use: the tokens, white, and transparent. */
function rgb(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return `rgb(${r}, ${g}, ${b})`;
}
const ALLOWED_COLORS = [...new Set([...Object.values(COLORS), ...Object.values(BRAND_SCALE), '#ffffff'].map(rgb))];
const ALLOWED_RADII = [RADII.sm, RADII.md, RADII.lg].map((r) => `${r}px`);

type Finding = { where: string; problem: string };

/** Waits until every island is hydrated; islands that hydrate when visible are scrolled into view first. */
async function hydrated(page: Page): Promise<void> {
  await page.waitForLoadState('load');
  // client:visible islands hydrate when their content enters the window: walk down the page half a
  // window at a time, leaving the browser a moment to notice each step.
  await page.evaluate(async () => {
    for (
      let y = 0;
      y <= document.documentElement.scrollHeight;
      y += Math.max(100, Math.floor(window.innerHeight / 2))
    ) {
      window.scrollTo(0, y);
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 150)));
    }
  });
  await page.waitForFunction(
    () => [...document.querySelectorAll('astro-island')].every((island) => !island.hasAttribute('ssr')),
    undefined,
    { timeout: 30_000 },
  );
  await page.evaluate(() => window.scrollTo(0, 0));
  // No hover state left on whatever was clicked last.
  await page.mouse.move(0, 0);
}

/** Problems with the look of the page's controls (the page's own and the islands', dialogs included). */
async function lookFindings(page: Page): Promise<{ findings: Finding[]; islandControls: number; controls: number }> {
  return page.evaluate(
    ({ allowedColors, allowedRadii }) => {
      const findings: { where: string; problem: string }[] = [];
      const describe = (el: Element) => {
        const inIsland = el.closest('astro-island') ? 'island ' : '';
        const text = (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 30);
        return `${inIsland}${el.tagName.toLowerCase()}${el.getAttribute('type') ? `[type=${el.getAttribute('type')}]` : ''} "${text}"`;
      };
      const isTransparent = (c: string) => c === 'transparent' || /^rgba\(\d+, \d+, \d+, 0\)$/.test(c);
      const colorOk = (c: string) => isTransparent(c) || allowedColors.includes(c);
      const controls = [
        ...document.querySelectorAll('button, .button, input:not([type=hidden]), select, textarea'),
      ].filter((el) => (el as HTMLElement).offsetParent !== null || el.closest('[role=dialog]'));
      let islandControls = 0;
      for (const el of controls) {
        if (el.closest('astro-island') || el.closest('[role=dialog]')) islandControls += 1;
        const s = getComputedStyle(el);
        const where = describe(el);
        if (!/^"?Inter/.test(s.fontFamily)) findings.push({ where, problem: `font-family ${s.fontFamily}` });
        // Chakra's radios and checkboxes keep the real input visually hidden (1 px): its look is the control beside it.
        const rect = el.getBoundingClientRect();
        if (rect.width <= 1 || rect.height <= 1) continue;
        const isNativeCheck = el.matches('input[type=checkbox], input[type=radio]');
        if (!isNativeCheck) {
          if (!colorOk(s.backgroundColor)) findings.push({ where, problem: `background ${s.backgroundColor}` });
          if (!colorOk(s.color)) findings.push({ where, problem: `color ${s.color}` });
          const hasBorder = parseFloat(s.borderTopWidth) > 0 && s.borderTopStyle !== 'none';
          if (hasBorder && !colorOk(s.borderTopColor)) findings.push({ where, problem: `border ${s.borderTopColor}` });
          if (hasBorder && s.borderTopStyle !== 'solid')
            findings.push({ where, problem: `border style ${s.borderTopStyle}` });
          // A text button (no border, no fill, like "Sign out") may keep square corners; every other control takes a token radius.
          const isTextButton = !hasBorder && isTransparent(s.backgroundColor);
          if (!isTextButton && !allowedRadii.includes(s.borderTopLeftRadius))
            findings.push({ where, problem: `radius ${s.borderTopLeftRadius}` });
        }
      }
      // Chakra radio rings: visible when unchecked (a border in a token colour), the accent when checked.
      for (const ring of document.querySelectorAll('.chakra-radio-group__itemControl')) {
        const s = getComputedStyle(ring);
        const where = `radio ring of "${ring.closest('label')?.textContent?.trim().slice(0, 30) ?? ''}"`;
        if (!(parseFloat(s.borderTopWidth) >= 1 && s.borderTopStyle === 'solid'))
          findings.push({ where, problem: `ring not drawn (${s.borderTopWidth} ${s.borderTopStyle})` });
        if (!colorOk(s.borderTopColor) || isTransparent(s.borderTopColor))
          findings.push({ where, problem: `ring colour ${s.borderTopColor}` });
        if (!colorOk(s.backgroundColor)) findings.push({ where, problem: `fill ${s.backgroundColor}` });
      }
      return { findings, islandControls, controls: controls.length };
    },
    { allowedColors: ALLOWED_COLORS, allowedRadii: ALLOWED_RADII },
  );
}

/** Elements sticking out of the window on the right, other than inside a container that scrolls or clips sideways. */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    if (document.documentElement.scrollWidth > width)
      out.push(`page is ${document.documentElement.scrollWidth}px wide for a ${width}px window`);
    const isContained = (el: Element) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const overflowX = getComputedStyle(p).overflowX;
        if (overflowX === 'auto' || overflowX === 'scroll' || overflowX === 'hidden' || overflowX === 'clip')
          return true;
      }
      return false;
    };
    for (const el of document.body.querySelectorAll('*')) {
      const rect = el.getBoundingClientRect();
      if (rect.width === 0 || rect.right <= width + 1) continue;
      if (getComputedStyle(el).position === 'fixed' || isContained(el)) continue;
      out.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')} ends at ${Math.round(rect.right)}px`);
    }
    return out.slice(0, 10);
  });
}

async function check(
  page: Page,
  testInfo: TestInfo,
  shot: string,
  { expectIslandControls = true } = {},
): Promise<void> {
  await testInfo.attach(shot, { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });
  const { findings, islandControls, controls } = await lookFindings(page);
  expect(controls, `${shot}: controls found`).toBeGreaterThan(0);
  if (expectIslandControls) expect(islandControls, `${shot}: island controls found`).toBeGreaterThan(0);
  expect(findings, `${shot}: controls off the design tokens`).toEqual([]);
  expect(await overflowing(page), `${shot}: overflowing the window`).toEqual([]);
}

async function signedIn(
  browser: Browser,
  baseURL: string,
  email: string,
  viewport: { width: number; height: number },
): Promise<Page> {
  const context = await browser.newContext({ baseURL, viewport, extraHTTPHeaders: { origin: baseURL } });
  const page = await context.newPage();
  await signIn(page, email);
  await expect(page).not.toHaveURL(/\/user\/login/);
  return page;
}

for (const viewport of VIEWPORTS) {
  test.describe(`[SHELL]: one look at ${viewport.name}`, () => {
    test('list, offer with its simulation, and the notify dialog', async ({ browser, baseURL }, testInfo) => {
      test.setTimeout(180_000);
      const page = await signedIn(browser, baseURL!, 'officer@demo.test', viewport);

      await page.goto('/loans/offers?tab=to_propose');
      await hydrated(page);
      await check(page, testInfo, `list-${viewport.name}`);

      await page.locator('table.data-table tbody tr').first().locator('a').first().click();
      await expect(page).toHaveURL(/\/offers\/[0-9a-f-]{36}$/);
      await hydrated(page);
      await check(page, testInfo, `offer-${viewport.name}`);

      await page.getByRole('button', { name: 'Simulate repayment' }).click();
      await page.getByRole('button', { name: 'Calculate' }).click();
      await expect(page.getByTestId('simulation-total')).toContainText('EUR');
      await page.mouse.move(0, 0);
      await check(page, testInfo, `offer-simulation-${viewport.name}`);

      await page.getByRole('button', { name: 'Notify' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('Phone call', { exact: true }).click();
      await expect(dialog.getByText('What was their level of interest?')).toBeVisible();
      await page.mouse.move(0, 0);
      await check(page, testInfo, `notify-dialog-${viewport.name}`);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(dialog).toHaveCount(0);
      await page.context().close();
    });

    test('a customer profile tab and the user profile', async ({ browser, baseURL }, testInfo) => {
      test.setTimeout(180_000);
      const page = await signedIn(browser, baseURL!, 'officer@demo.test', viewport);
      await page.goto('/loans/customers');
      await page.locator('table.data-table tbody tr').first().locator('a').first().click();
      await expect(page).toHaveURL(/\/customer\/profile\/[0-9a-f-]{36}/);
      await hydrated(page);
      await check(page, testInfo, `profile-tab-${viewport.name}`, { expectIslandControls: false });

      await page.goto('/loans/user/profile');
      await hydrated(page);
      await check(page, testInfo, `user-profile-${viewport.name}`);
      await page.context().close();
    });

    test('loan page with its action forms opened, and the 404 page', async ({ browser, baseURL }, testInfo) => {
      test.setTimeout(180_000);
      const page = await signedIn(browser, baseURL!, 'admin@demo.test', viewport);
      await page.goto('/loans/loans');
      await page.locator('table.data-table tbody tr').first().locator('a').first().click();
      await expect(page).toHaveURL(/\/loans\/[0-9a-f-]{36}$/);
      await hydrated(page);
      // Open every action form (they load on demand), then the confirmations of the forms that have
      // one (nothing is submitted twice: each only asks).
      for (const name of ['Record a repayment', 'Reverse this transaction', 'Write off the loan']) {
        const toggle = page.getByRole('button', { name, exact: true });
        if (await toggle.count()) await toggle.first().click();
      }
      await expect(page.getByRole('button', { name: 'Repay', exact: true })).toBeVisible();
      for (const name of ['Reverse', 'Write off']) {
        const button = page.getByRole('button', { name, exact: true });
        if (await button.count()) await button.first().click();
      }
      await page.mouse.move(0, 0);
      await check(page, testInfo, `loan-${viewport.name}`);

      const response = await page.goto('/loans/no-such-page');
      expect(response?.status()).toBe(404);
      await hydrated(page);
      await check(page, testInfo, `404-${viewport.name}`);
      await page.context().close();
    });
  });
}

test('[SHELL]: the side navigation folds away and stays folded, from the keyboard', async ({ browser, baseURL }) => {
  const page = await signedIn(browser, baseURL!, 'officer@demo.test', { width: 1024, height: 640 });
  await page.goto('/loans/offers');
  const nav = page.getByRole('navigation', { name: 'Loans pages' });
  const toggle = page.getByRole('button', { name: 'Show or hide the side navigation' });
  await expect(nav).toBeVisible();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await toggle.focus();
  await page.keyboard.press('Enter');
  await expect(nav).toBeHidden();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  // The table gets the room: the main column starts at the window's edge.
  expect(await page.locator('main').evaluate((m) => m.getBoundingClientRect().left)).toBe(0);

  // Kept on the next page, rendered folded by the server.
  await page.goto('/loans/customers');
  await expect(nav).toBeHidden();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await toggle.click();
  await expect(nav).toBeVisible();
  await page.reload();
  await expect(nav).toBeVisible();
});

test('[SHELL]: without JavaScript the side navigation is open and no dead toggle shows', async ({
  browser,
  baseURL,
}) => {
  const context = await browser.newContext({
    baseURL,
    javaScriptEnabled: false,
    viewport: { width: 1024, height: 640 },
    extraHTTPHeaders: { origin: baseURL! },
  });
  const page = await context.newPage();
  await signIn(page, 'officer@demo.test');
  await page.goto('/loans/offers');
  await expect(page.getByRole('navigation', { name: 'Loans pages' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Show or hide the side navigation' })).toHaveCount(0);
});
