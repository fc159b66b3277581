// Start-up only: cold loads, warm offline loads, and warm loads with 1,000 conversations (the
// same measurements as run.mjs), for working on start-up without the whole bench.
//   node bench/loads.mjs
import { launchBrowser, startApp } from '../tests/browser/helpers.mjs';
import { coldLoads, warmLoads } from './load-measure.mjs';

const app = await startApp();
try {
  const cold = await coldLoads(app.url, launchBrowser);
  const browser = await launchBrowser();
  try {
    const page = await browser.context.newPage();
    console.log(JSON.stringify({ ...cold, ...(await warmLoads(page, app.url)) }, null, 2));
  } finally {
    await browser.close();
  }
} finally {
  await app.close();
}
