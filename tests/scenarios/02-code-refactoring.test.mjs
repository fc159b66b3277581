// PRD scenario 2, a staged code migration over two days: the user grants Clawser a project folder
// (File System Access: the native picker cannot be driven headless, so showDirectoryPicker returns
// a real directory handle standing in for the user's folder; everything after it is the app's own
// code), starts versioning it with git, and asks to migrate auth from sessions to JWT. Day 1: the
// agent reads the code, writes a plan, branches and commits stage 1. Day 2: the user asks for the
// middleware stage; the browser is closed while that reply streams; reopened the next day, the app
// says the request was interrupted, the folder's permission is back to 'prompt' (as after a Chrome
// restart) and the user allows it again in the Files panel, Retry resumes it with the day-1 history and memory, and stage
// 2 and the summary are committed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appView } from '../browser/helpers.mjs';
import { useFixture } from '../browser/fixture.mjs';
import { toolResults, turn } from './scenario.mjs';

const DAY = 86_400_000;
const START = Math.floor(Date.now() / DAY) * DAY - 5 * DAY + 9 * 3_600_000;
const FOLDER = 'project';

const fx = await useFixture({
  llm: {},
  beforePage: async ({ context }) => {
    await context.clock.install({ time: START });
    await context.addInitScript((name) => {
      /** @type {any} */ (window).showDirectoryPicker = async () =>
        (await navigator.storage.getDirectory()).getDirectoryHandle(name, { create: true });
    }, FOLDER);
  },
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1`, autonomy: 'full' }),
});
const { llm } = fx;
let page = fx.page;

/** The user's project, as it is on disk before Clawser sees it. */
const PROJECT = {
  'package.json': '{ "name": "shop", "dependencies": { "express-session": "^1.18.0" } }\n',
  'src/auth/session.js': "import session from 'express-session';\nexport const auth = session({ secret: 'dev' });\n",
  'src/auth/middleware.js':
    'export function requireUser(req, res, next) {\n  if (!req.session.user) return res.sendStatus(401);\n  next();\n}\n',
  'src/server.js': "import { auth } from './auth/session.js';\n",
};
const PLAN =
  '# JWT migration plan\n\n1. Token generation (src/auth/token.js)\n2. Middleware (src/auth/middleware.js)\n3. Remove sessions\n';
const TOKEN = "export function issueToken(user, sign) {\n  return sign({ sub: user.id }, { expiresIn: '1h' });\n}\n";
const MIDDLEWARE =
  'export function requireUser(req, res, next) {\n  const user = req.verifyToken(req.headers.authorization);\n' +
  '  if (!user) return res.sendStatus(401);\n  next();\n}\n';
const SUMMARY = '# JWT migration summary\n\n- Stage 1: token generation\n- Stage 2: middleware\n';
const PROGRESS = 'JWT migration: stage 1 (token generation) is committed on branch jwt-migration; the middleware stage is next.';

/** A file of the granted folder, as it is on disk (null: none). @param {string} path */
const folderFile = (path) =>
  page.evaluate(
    async ([folder, p]) => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const fs = new OpfsFileSystem();
      return fs
        .readText(`${folder}/${p}`)
        .catch(() => null)
        .finally(() => fs.terminate());
    },
    [FOLDER, path],
  );

/** The folder's git history (newest first) and current branch. */
const folderGit = () =>
  page.evaluate(async (folder) => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
    const { WorkspaceGit } = await import('/web/git/git.js');
    const fs = new OpfsFileSystem();
    try {
      const repo = new WorkspaceGit(new ScopedFileSystem(fs, folder));
      return { messages: (await repo.log()).map((c) => c.message.trim()), branch: (await repo.branches()).current };
    } finally {
      fs.terminate();
    }
  }, FOLDER);

test('the user grants the project folder and starts versioning it; the agent reads it and sees the auth code', async () => {
  await page.evaluate(
    async ([folder, files]) => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const fs = new OpfsFileSystem();
      for (const [p, text] of Object.entries(files)) await fs.write(`${folder}/${p}`, text);
      fs.terminate();
    },
    /** @type {[string, Record<string, string>]} */ ([FOLDER, PROJECT]),
  );
  await page.getByRole('button', { name: 'Files', exact: true }).click();
  await page.getByRole('button', { name: 'Open a folder from this computer' }).click();
  await page.getByText(`Showing your folder “${FOLDER}”.`).waitFor();
  await page.getByRole('button', { name: 'Git', exact: true }).click();
  await page.getByRole('button', { name: 'Start versioning with git' }).click();
  await page.getByRole('heading', { name: /^Changes \(4\)$/ }).waitFor();
  await page.getByLabel(/Commit message/).fill('The project before the migration');
  await page.getByRole('button', { name: 'Stage all' }).click();
  await page.getByRole('button', { name: 'Commit', exact: true }).click();
  await page.getByText(/Committed [0-9a-f]{7}\./).waitFor();
  await page.getByRole('button', { name: 'Back to chat' }).click();
  await turn(
    page,
    llm,
    'Migrate authentication from sessions to JWT.',
    [
      {
        toolCalls: [
          { id: 'g1', name: 'goal_add', arguments: { description: 'Migrate authentication from sessions to JWT' } },
          { id: 'l1', name: 'shell', arguments: { command: 'grep -rl session src' } },
          { id: 'r1', name: 'fs_read', arguments: { path: 'src/auth/middleware.js' } },
        ],
      },
      { text: 'Two files use sessions.' },
    ],
    'Two files use sessions.',
  );
  const results = await toolResults(page);
  const found = results.l1.result.split('\n').filter((line) => line.startsWith('src/'));
  assert.deepEqual(found.sort(), ['src/auth/middleware.js', 'src/auth/session.js', 'src/server.js']);
  assert.match(results.r1.result, /req\.session\.user/);
});

test('day 1: the plan, a branch and stage 1 committed in the folder; progress remembered', async () => {
  await turn(
    page,
    llm,
    'Go ahead with the first stage.',
    [
      {
        toolCalls: [
          { id: 'w1', name: 'fs_write', arguments: { path: 'artifacts/jwt-migration-plan.md', content: PLAN } },
          { id: 'b1', name: 'git_branch', arguments: { action: 'create', name: 'jwt-migration', checkout: true } },
          { id: 'w2', name: 'fs_write', arguments: { path: 'src/auth/token.js', content: TOKEN } },
          { id: 'c1', name: 'git_commit', arguments: { message: 'Stage 1: JWT token generation' } },
          { id: 'm1', name: 'memory_store', arguments: { key: 'JWT migration progress', content: PROGRESS, category: 'context' } },
        ],
      },
      { text: 'Stage 1 is committed.' },
    ],
    'Stage 1 is committed.',
  );
  const results = await toolResults(page);
  for (const id of ['w1', 'b1', 'w2', 'c1', 'm1']) assert.equal(results[id]?.ok, true, `${id}: ${results[id]?.result}`);
  // Written into the user's folder itself.
  assert.equal(await folderFile('artifacts/jwt-migration-plan.md'), PLAN);
  assert.equal(await folderFile('src/auth/token.js'), TOKEN);
  const git = await folderGit();
  assert.equal(git.branch, 'jwt-migration');
  assert.deepEqual(git.messages.slice(0, 2), ['Stage 1: JWT token generation', 'The project before the migration']);
});

test('day 2: the browser closes mid-reply; reopened, Retry resumes the migration with day 1 remembered', async () => {
  await fx.context.clock.setSystemTime(START + DAY);
  // The reply is held mid-stream while the browser goes.
  llm.enqueue({ text: 'Starting on the middleware now, then', pauseAfter: 3 });
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Continue the JWT migration with the middleware.');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByRole('button', { name: 'Stop' }).waitFor();
  await page.locator('.msg.streaming .msg-body', { hasText: 'Starting' }).waitFor();
  const day1 = llm.requests.length;
  await fx.relaunch();
  llm.resume();
  await fx.context.clock.install({ time: START + DAY + 3_600_000 });
  // As Chrome does for a remembered folder after a restart: its permission is back to 'prompt'
  // until the user allows it again (the browser's prompt, here answered "allow").
  await fx.context.addInitScript(() => {
    const proto = /** @type {any} */ (FileSystemHandle.prototype);
    proto.queryPermission = async () => (sessionStorage.getItem('granted') ? 'granted' : 'prompt');
    proto.requestPermission = async () => {
      sessionStorage.setItem('granted', '1');
      return 'granted';
    };
  });
  page = await fx.openWorkspace();
  await appView(page);
  await page.getByText('Your last request was interrupted: the tab closed before the reply finished.').waitFor();
  // The folder is still the workspace after the restart: the user allows it again in the Files panel.
  await page.getByRole('button', { name: 'Files', exact: true }).click();
  await page.getByText(`Folder “${FOLDER}” needs your permission again.`).waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('granted')), null, 'not granted before the user clicks');
  await page.getByRole('button', { name: 'Allow access to the folder' }).click();
  await page.getByText(`Showing your folder “${FOLDER}”.`).waitFor();
  await page.getByRole('button', { name: 'package.json', exact: true }).waitFor();
  await page.getByRole('button', { name: 'Back to chat' }).click();
  await page.getByText('Your last request was interrupted: the tab closed before the reply finished.').waitFor();
  const stage2 = await turn(
    page,
    llm,
    '',
    [
      {
        toolCalls: [
          { id: 'w3', name: 'fs_write', arguments: { path: 'src/auth/middleware.js', content: MIDDLEWARE } },
          { id: 'c2', name: 'git_commit', arguments: { message: 'Stage 2: verify JWTs in the middleware' } },
          { id: 'w4', name: 'fs_write', arguments: { path: 'artifacts/jwt-migration-summary.md', content: SUMMARY } },
          { id: 'c3', name: 'git_commit', arguments: { message: 'Add the migration summary' } },
        ],
      },
      { text: 'Stage 2 is committed; the summary is written.' },
    ],
    'Stage 2 is committed',
    { send: () => page.getByRole('button', { name: 'Retry' }).click() },
  );
  assert.deepEqual(stage2, [], 'fs_write was always allowed on day 1: the choice survived the restart');
  // The resumed request carried day 1: its tool calls and results, and the remembered progress.
  const resumed = llm.requests.slice(day1).find((r) => r.body?.messages?.some((/** @type {any} */ m) => m.role === 'user'))?.body;
  const sent = JSON.stringify(resumed.messages);
  assert.match(sent, /Stage 1: JWT token generation/);
  assert.match(resumed.messages[0].content, /Relevant long-term memories[\s\S]*JWT migration progress/);
  assert.equal(resumed.messages.at(-1).content, 'Continue the JWT migration with the middleware.');
  const results = await toolResults(page);
  for (const id of ['w3', 'c2', 'w4', 'c3']) assert.equal(results[id]?.ok, true, `${id}: ${results[id]?.result}`);
  assert.equal(await folderFile('src/auth/middleware.js'), MIDDLEWARE);
  assert.equal(await folderFile('artifacts/jwt-migration-summary.md'), SUMMARY);
  const git = await folderGit();
  assert.equal(git.branch, 'jwt-migration');
  assert.deepEqual(git.messages.slice(0, 4), [
    'Add the migration summary',
    'Stage 2: verify JWTs in the middleware',
    'Stage 1: JWT token generation',
    'The project before the migration',
  ]);
});
