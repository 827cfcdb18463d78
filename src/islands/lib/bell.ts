/**
 * The bell's few lines of behaviour (src/components/AppHeader.astro): following a notification marks
 * it read (POST /v1/notifications/{id}/read) before the browser goes to its page, and "mark all as
 * read" posts /v1/notifications/read-all. Without JavaScript the links still open their pages.
 */
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

async function post(path: string): Promise<void> {
  try {
    await fetch(path, { method: 'POST', credentials: 'same-origin', headers: JSON_HEADERS, body: '{}' });
  } catch {
    // Reading a notification must never stop the user from opening its page.
  }
}

export function startBell(root: Document = document): void {
  const bell = root.querySelector<HTMLElement>('[data-bell]');
  if (!bell) return;
  bell.addEventListener('click', (event) => {
    const target = event.target as HTMLElement | null;
    const link = target?.closest<HTMLAnchorElement>('a[data-notification]');
    if (link) {
      event.preventDefault();
      void post(`/v1/notifications/${encodeURIComponent(link.dataset.notification ?? '')}/read`).then(() => {
        window.location.assign(link.href);
      });
      return;
    }
    const readAll = target?.closest<HTMLButtonElement>('[data-bell-read-all]');
    if (readAll) {
      void post('/v1/notifications/read-all').then(() => window.location.reload());
    }
  });
  for (const button of bell.querySelectorAll<HTMLElement>('[data-bell-read-all]')) button.hidden = false;
}
