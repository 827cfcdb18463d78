/**
 * The side navigation's toggle in the header (src/components/AppHeader.astro): a plain module, wired
 * by the shell keeper, so pages without islands still load no framework. The state lives in a
 * cookie the layout reads, so the next page is rendered open or closed on the server, without a
 * flash; without JavaScript the button stays hidden and the navigation open.
 */
export const SIDENAV_ID = 'shell-sidenav';
export const NAV_COOKIE = 'shell-nav';
const COLLAPSED = 'collapsed';
const BODY_COLLAPSED_CLASS = 'shell-body--nav-collapsed';

export function isNavCollapsedCookie(value: string | undefined): boolean {
  return value === COLLAPSED;
}

/** The cookie that remembers the choice for a year, on every path (the navigation is the same on every page). */
export function navCookie(isCollapsed: boolean): string {
  return isCollapsed
    ? `${NAV_COOKIE}=${COLLAPSED}; Path=/; Max-Age=31536000; SameSite=Lax`
    : `${NAV_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax`;
}

export function wireNavToggle(doc: Document = document): void {
  const body = doc.querySelector<HTMLElement>('.shell-body--with-nav');
  for (const button of doc.querySelectorAll<HTMLButtonElement>('button[data-nav-toggle]')) {
    if (!body) continue;
    button.hidden = false;
    button.addEventListener('click', () => {
      const isCollapsed = !body.classList.contains(BODY_COLLAPSED_CLASS);
      body.classList.toggle(BODY_COLLAPSED_CLASS, isCollapsed);
      button.setAttribute('aria-expanded', String(!isCollapsed));
      doc.cookie = navCookie(isCollapsed);
    });
  }
}
