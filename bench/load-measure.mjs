// Start-up measurements shared by `npm run bench` (run.mjs) and `node bench/loads.mjs` (start-up
// alone, for working on it without the whole bench).

/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * When the first view was on screen and usable (app.js or the first view marks it), and when the
 * app had taken over (its view rendered, shortcuts listening; clicks before it were queued).
 * @param {import('playwright-core').Page} page
 * @returns {Promise<{interactive: number, appReady: number}>}
 */
async function startTimes(page) {
  await page.waitForFunction(() => performance.getEntriesByName('clawser-app-ready').length > 0, null, { timeout: 60_000 });
  return page.evaluate(() => ({
    interactive: performance.getEntriesByName('clawser-interactive')[0].startTime,
    appReady: performance.getEntriesByName('clawser-app-ready')[0].startTime,
  }));
}

/**
 * First visit, nothing cached: a fresh browser profile each time, median of five.
 * @param {string} url
 * @param {() => Promise<{context: import('playwright-core').BrowserContext, close: () => Promise<void>}>} launchBrowser
 */
export async function coldLoads(url, launchBrowser) {
  const times = [];
  for (let i = 0; i < 5; i++) {
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      await page.goto(url);
      times.push(await startTimes(page));
    } finally {
      await browser.close();
    }
  }
  return { coldLoadMs: median(times.map((t) => t.interactive)), coldLoadAppReadyMs: median(times.map((t) => t.appReady)) };
}

/**
 * Warm loads, offline, median of five; then the app opened on a workspace with 1,000
 * conversations in its list (warm, offline), median of five. Leaves the page online.
 * @param {import('playwright-core').Page} page
 * @param {string} url
 */
export async function warmLoads(page, url) {
  process.stderr.write('bench: load\n');
  await page.goto(url);
  await startTimes(page);
  await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 60_000 });
  await page.context().setOffline(true);
  const warm = [];
  for (let i = 0; i < 5; i++) {
    await page.reload();
    warm.push(await startTimes(page));
  }
  // Opening the app on a workspace with 1,000 conversations in its list (warm, offline).
  process.stderr.write('bench: 1,000 conversations\n');
  await page.getByRole('link', { name: /My workspace/ }).click();
  await page.waitForURL(/#workspace\//);
  await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/clawser.js');
    const opfs = new OpfsFileSystem();
    const ws = location.hash.split('/')[1];
    const now = Date.now();
    await Promise.all(
      Array.from({ length: 1000 }, async (_, i) => {
        const id = `cbench${i}`;
        const dir = `clawser_workspaces/${ws}/.conversations/${id}`;
        const events = [
          ['user_message', 'user', `Question number ${i} about something`],
          ['agent_message', 'agent', `Answer number ${i}, with a few words.`],
        ]
          .map(([type, source, text], k) =>
            JSON.stringify({ id: `${id}-${k}`, type, source, timestamp: now - i * 60_000 + k, data: { text } }),
          )
          .join('\n');
        await opfs.write(`${dir}/events.jsonl`, `${events}\n`);
        await opfs.write(
          `${dir}/meta.json`,
          JSON.stringify({ id, title: `Question number ${i} about something`, createdAt: now - i * 60_000, updatedAt: now - i * 60_000 }),
        );
      }),
    );
    opfs.terminate();
  });
  const thousand = [];
  for (let i = 0; i < 6; i++) {
    await page.reload();
    const t = await startTimes(page);
    if (!(await page.getByRole('button', { name: /more of 900 older conversations/ }).count()))
      throw new Error('bench: the list does not hold the 1,000 conversations');
    if (i > 0) thousand.push(t); // the first load after writing them warms the file handles
  }
  await page.context().setOffline(false);
  return {
    warmOfflineLoadMs: median(warm.map((t) => t.interactive)),
    warmOfflineLoadAppReadyMs: median(warm.map((t) => t.appReady)),
    openApp1000ConversationsMs: median(thousand.map((t) => t.interactive)),
    openApp1000ConversationsAppReadyMs: median(thousand.map((t) => t.appReady)),
  };
}
