// What every in-browser bench does with its page: progress lines on stderr (stdout is the JSON),
// and the app opened on its home view (for the import map the page's modules need).

/** Forwards the page's `bench: …` console lines to stderr, so a stall shows where it is. @param {import('playwright-core').Page} page */
export function forwardProgress(page) {
  page.on('console', (m) => {
    if (m.text().startsWith('bench:')) process.stderr.write(`${m.text()}\n`);
  });
}

/** Opens the app's home view and waits until it shows. @param {import('playwright-core').Page} page @param {string} url */
export async function openHome(page, url) {
  await page.goto(`${url}#home`);
  await page.getByRole('heading', { name: 'Workspaces' }).waitFor({ timeout: 60_000 });
}
