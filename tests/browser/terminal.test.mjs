// The shell in Chromium (issue 16): the Terminal panel runs a pipeline over OPFS files,
// completes a path, stops `while true` with Ctrl-C while the page stays responsive, keeps its
// history across a reload and refuses Clawser's own folders; the agent's `shell` tool asks, the
// approval dialog's narrowed "Always allow" becomes a prefix rule (listed and removable in the
// Tools panel), and a read-only line runs without asking. Issue 32: what the vendored
// interpreter's patch and Clawser's commands change shows in the page too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendMessage, readWorkspaceFile, waitInPage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

const { llm, page } = await useFixture({
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
});
// Files in the workspace's OPFS folder, written through the app's own storage module.
await page.evaluate(async () => {
  const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
  const [, ws] = location.hash.slice(1).split('/');
  const fs = new OpfsFileSystem();
  try {
    await fs.write(`clawser_workspaces/${ws}/notes/meeting.md`, 'TODO book room\nagenda\nTODO send notes\n');
    await fs.write(`clawser_workspaces/${ws}/notes/ideas.md`, 'TODO try the shell\n');
    await fs.write(`clawser_workspaces/${ws}/readme.txt`, 'hello\n');
  } finally {
    fs.terminate();
  }
});

/** Waits until the terminal shows `text` (a string or pattern). @param {string | RegExp} text */
async function shows(text) {
  await waitInPage(
    page,
    ({ source, flags }) => {
      const rows = [...document.querySelectorAll('.terminal-host .xterm-rows')]
        .map((r) => /** @type {HTMLElement} */ (r).innerText)
        .join('\n');
      return Promise.resolve(new RegExp(source, flags).test(rows));
    },
    typeof text === 'string'
      ? { source: text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags: '' }
      : { source: text.source, flags: text.flags },
    { what: `the terminal to show ${text}` },
  );
}

/** Types a line into the focused terminal and presses Enter. @param {string} line */
async function typeLine(line) {
  await page.locator('.terminal-host:visible .xterm-helper-textarea').focus();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

const idle = () => page.locator('.terminal-host:visible:not([aria-busy])').waitFor();

test('the Terminal panel runs a pipeline over the workspace’s OPFS files and completes a path', async () => {
  await page.keyboard.press('Alt+KeyT');
  await page.getByRole('heading', { name: 'Terminal' }).waitFor();
  assert.match(page.url(), /#workspace\/[^/]+\/terminal$/);
  await page.locator('.terminal-host .xterm-helper-textarea').waitFor();
  await typeLine('grep -r TODO notes | wc -l');
  await shows(/wc -l\n3\n/);
  await typeLine('cat notes/*.md | grep -c TODO > count.txt && cat count.txt');
  await shows(/count\.txt\n3\n/);
  assert.equal(await readWorkspaceFile(page, 'count.txt'), '3\n');
  // gzip (fflate standing in for node:zlib in the page), tar, and git on the workspace's repository.
  await typeLine('echo squeezed | gzip | gunzip && tar -cf n.tar notes && tar -tf n.tar | sort | head -n 2');
  await shows(/squeezed\nnotes\/\nnotes\/ideas\.md\n/);
  await typeLine('rm n.tar; git add -A && git commit -q -m "from the terminal" && git log --oneline | head -n 1');
  await shows(/[0-9a-f]{7} from the terminal\n/);
  // Tab completes a path.
  await page.locator('.terminal-host:visible .xterm-helper-textarea').focus();
  await page.keyboard.type('cat notes/mee');
  await page.keyboard.press('Tab');
  await shows('cat notes/meeting.md ');
  await page.keyboard.press('Enter');
  await shows(/TODO book room\nagenda\nTODO send notes/);
  // The panels' actions from the shell: a tool policy set here shows in the Tools panel's terms.
  await typeLine('clawser tool policy web_search denied && clawser tool list | grep web_search');
  await shows(/web_search\s+network\s+denied/);
  await typeLine('clawser tool policy web_search default');
  await shows('web_search: default.');
  await typeLine('clawser mcp add docs http://127.0.0.1:9/mcp && clawser mcp list | cut -f1,2 && clawser mcp remove docs');
  await shows(/docs\s+http:\/\/127\.0\.0\.1:9\/mcp\s*\nRemoved docs\./);
  await typeLine('clawser memory export | jq -r .format');
  await shows(/\nclawser-memory\n/);
  // Clawser's own folders are refused, with the reason.
  await typeLine('echo planted > .scheduler/jobs.json');
  await shows('EACCES');
  assert.equal(await readWorkspaceFile(page, '.scheduler/jobs.json'), null);
});

test('the terminal takes its colours from the design tokens, light and dark, and follows a change of theme', async () => {
  if (!(await page.getByRole('heading', { name: 'Terminal' }).isVisible())) await page.keyboard.press('Alt+KeyT');
  await page.locator('.terminal-host .xterm-helper-textarea').waitFor();
  await shows('clawser:');
  /** The terminal's background and its prompt's colour as drawn, and the tokens' values, each as rgb(). */
  const read = () =>
    page.evaluate(() => {
      /** @param {string} token */
      const rgb = (token) => {
        const probe = document.createElement('span');
        probe.style.color = `var(${token}, transparent)`;
        document.body.append(probe);
        const colour = getComputedStyle(probe).color;
        probe.remove();
        return colour;
      };
      const screen = document.querySelector('.terminal-host .xterm-scrollable-element');
      const prompt = [...document.querySelectorAll('.terminal-host .xterm-rows span')].find((el) => el.textContent === 'clawser');
      return {
        background: screen ? getComputedStyle(screen).backgroundColor : null,
        prompt: prompt ? getComputedStyle(prompt).color : null,
        bg: rgb('--terminal-bg'),
        greens: [rgb('--terminal-green'), rgb('--terminal-bright-green')],
      };
    });
  const light = await read();
  assert.equal(light.background, light.bg, 'the background is --terminal-bg');
  assert.ok(
    light.greens.includes(/** @type {string} */ (light.prompt)),
    `the green prompt is a --terminal-*green token (${JSON.stringify(light)})`,
  );
  await page.emulateMedia({ colorScheme: 'dark' });
  try {
    await waitInPage(
      page,
      (bg) =>
        Promise.resolve(
          getComputedStyle(/** @type {Element} */ (document.querySelector('.terminal-host .xterm-scrollable-element'))).backgroundColor !==
            bg,
        ),
      light.background,
      { what: 'the terminal to redraw in the dark theme' },
    );
    const dark = await read();
    assert.notEqual(dark.bg, light.bg, 'control: the themes differ');
    assert.equal(dark.background, dark.bg);
    assert.ok(dark.greens.includes(/** @type {string} */ (dark.prompt)), JSON.stringify(dark));
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
  }
});

test('git diff A B and --name-status A B between two commits made in the terminal; working-tree git diff as before', async () => {
  await page.keyboard.press('Alt+KeyT');
  await page.getByRole('heading', { name: 'Terminal' }).waitFor();
  await page.locator('.terminal-host:visible .xterm-helper-textarea').waitFor();
  await idle();
  // The ids in variables: each line is its own shell run, so the diffs are on the same line.
  await typeLine(
    'echo one > d.txt && git add d.txt && git commit -q -m d1 && a=$(git log --format=%h -n 1) && ' +
      'echo two > d.txt && git commit -q -a -m d2 && b=$(git log --format=%h -n 1) && ' +
      'echo "== full" && git diff $a $b && echo "== status" && git diff --name-status $a $b && echo "== end"',
  );
  await shows(/== full\ndiff --git a\/d\.txt b\/d\.txt\n--- a\/d\.txt\n\+\+\+ b\/d\.txt\n@@ -1 \+1 @@\n-one\n\+two\n== status\n/);
  await shows(/== status\nM\s+d\.txt\n== end/);
  // Control: the working tree's change against the index prints as it did.
  await idle();
  await typeLine('echo three > d.txt && git diff d.txt');
  await shows(/\n@@ -1 \+1 @@\n-two\n\+three\n/);
});

test('in the page (the vendored interpreter, over OPFS): globs ending in / name folders and never ./ or ../, \
diff prints its normal format, a usr/bin/ folder leaves commands alone, a zip bomb is refused, LANG is set, \
an arithmetic error ends its line (issue 32 §5 §8)', async () => {
  await page.keyboard.press('Alt+KeyT');
  await page.locator('.terminal-host .xterm-helper-textarea').waitFor();
  await idle();
  // A usr/bin/ folder in the workspace: every command (the hidden preamble's too) still runs.
  await typeLine('mkdir -p usr/bin && echo mine > usr/bin/tool && echo */ && cat usr/bin/tool');
  await shows(/\nnotes\/ usr\/\nmine\n/);
  await typeLine("printf 'a\\nb\\n' > x.txt && printf 'a\\nB\\n' > y.txt && diff x.txt y.txt; echo \"diff $?\"");
  await shows(/2c2\n< b\n---\n> B\ndiff 1\n/);
  await typeLine('LC_ALL=C sort <<< $\'b\\nB\\na\' | tr "\\n" " "; echo; sort <<< $\'b\\nB\\na\' | tr "\\n" " "; echo');
  await shows(/\nB a b \na b B \n/);
  // 30 MB of zeros in a 30 KB ZIP: within every size limit, refused by the ratio; nothing written.
  await page.evaluate(async () => {
    // Imported by a computed specifier so the type checker does not read the minified bundle; its types are fflate's.
    /** @type {typeof import('fflate')} */
    const { zipSync } = await import(String('/web/vendor/fflate.js'));
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const [, ws] = location.hash.slice(1).split('/');
    const fs = new OpfsFileSystem();
    try {
      await fs.write(
        `clawser_workspaces/${ws}/bomb.zip`,
        zipSync({ 'a.bin': new Uint8Array(15 * 1024 * 1024), 'b.bin': new Uint8Array(15 * 1024 * 1024) }, { level: 9 }),
      );
    } finally {
      fs.terminate();
    }
  });
  await typeLine(
    'unzip -q bomb.zip -d out 2> err.txt; echo "unzip $?"; grep -c "as zip bombs do; ' +
      'nothing was extracted" err.txt; ls -d out 2>&1 | grep -c "No such"',
  );
  await shows(/\nunzip 1\n1\n1\n/);
  assert.equal(await readWorkspaceFile(page, 'out/a.bin'), null);
  // No glob matches . or ..: rm -rf .*/ removes the dot folder only, never notes/ above it; LANG is
  // in the environment (the browser's language).
  await typeLine(
    'mkdir -p notes/sub/.cache && cd notes/sub && echo .*/ && rm -rf .*/; cd / && ls ' +
      '-a notes/sub | tr "\\n" " "; ls -d notes; echo "lang=$LANG"',
  );
  await shows(/\n\.cache\/\n\. \.\. notes\nlang=[a-z]{2,3}_[A-Z]{2}\.UTF-8\n/);
  // An arithmetic error ends its line wherever it is (here in a function), with bash's message; the next line runs.
  await idle();
  await typeLine('f() { echo in-f; echo $((7 % 0)); echo after; }; f; echo next');
  await idle();
  await typeLine('echo "arith $?"');
  await shows(/\nin-f\nbash: 7 % 0: division by 0 \(error token is "0"\)\n(?:(?!after|next)[^])*\narith 1\n/);
  await typeLine('rm -r usr x.txt y.txt bomb.zip err.txt notes/sub');
  await idle();
});

test('Ctrl-C stops `while true; do :; done`; the page answers while it runs', async () => {
  await idle();
  await typeLine('while true; do :; done');
  await page.locator('.terminal-host:visible[aria-busy="true"]').waitFor();
  // The loop yields: the page still runs its own code meanwhile (a timer's task gets its turn).
  assert.equal(await page.evaluate(() => new Promise((resolve) => setTimeout(() => resolve('answered'), 0))), 'answered');
  await page.keyboard.press('Control+c');
  await idle();
  await shows('^C');
  await typeLine('echo alive');
  await shows(/echo alive\nalive\n/);
  // Ctrl-L clears the screen and leaves a prompt.
  await page.keyboard.press('Control+l');
  await waitInPage(
    page,
    () => Promise.resolve(!/echo alive/.test(/** @type {HTMLElement} */ (document.querySelector('.terminal-host .xterm-rows')).innerText)),
    undefined,
    { what: 'the screen to clear' },
  );
  // Screen-reader mode: xterm's accessible buffer appears, and the choice is kept.
  await page.getByLabel('Screen reader mode').check();
  await page.locator('.terminal-host:visible .xterm-accessibility-tree').waitFor({ state: 'attached' });
  await page.getByLabel('Screen reader mode').uncheck();
  // Pasted lines run one after another, each followed by its output.
  await page.locator('.terminal-host:visible .xterm-helper-textarea').evaluate((el) => {
    const data = new DataTransfer();
    data.setData('text/plain', 'echo first-$((1+1))\necho second-$((2+2))\n');
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  });
  await shows(/echo first-\$\(\(1\+1\)\)\nfirst-2\n.*echo second-\$\(\(2\+2\)\)\nsecond-4\n/);
});

test('history survives a reload (Up recalls the last line, Ctrl-R searches)', async () => {
  await idle();
  await page.reload();
  await page.getByRole('heading', { name: 'Terminal' }).waitFor();
  await page.locator('.terminal-host .xterm-helper-textarea').waitFor();
  await page.locator('.terminal-host:visible .xterm-helper-textarea').focus();
  await page.keyboard.press('ArrowUp');
  await shows(/\$ echo second-\$\(\(2\+2\)\)\s*$/m);
  await page.keyboard.press('Control+u');
  await page.keyboard.press('Control+r');
  await page.keyboard.type('wc -l');
  await shows("(reverse-i-search)'wc -l': grep -r TODO notes | wc -l");
  await page.keyboard.press('Enter');
  await shows(/wc -l\n3\n/);
});

test('the agent’s shell tool: a write asks, "Always allow “cp”" becomes a prefix rule listed in the Tools panel; \
a read-only line does not ask', async () => {
  await idle();
  await page.getByRole('button', { name: 'Back to chat' }).click();
  llm.enqueue({ toolCalls: [{ id: 's1', name: 'shell', arguments: { command: 'cp readme.txt notes/agent.txt' } }] }, { text: 'Wrote it.' });
  await sendMessage(page, 'write a note with the shell');
  const dialog = page.getByRole('dialog', { name: 'Allow “shell”?' });
  await dialog.waitFor();
  await dialog.getByText('Changes something', { exact: false }).waitFor();
  await dialog.getByRole('button', { name: 'Allow always: only commands starting with “cp”' }).click();
  await page.locator('.msg.assistant', { hasText: 'Wrote it.' }).waitFor();
  assert.equal(await readWorkspaceFile(page, 'notes/agent.txt'), 'hello\n');
  const result = llm.requests.at(-1)?.body.messages.findLast((/** @type {any} */ m) => m.role === 'tool');
  assert.match(result.content, /^exit code: 0\nstdout:\n\(empty\)/);

  // The rule covers the next cp; a read-only line needs no rule; another command still asks.
  llm.enqueue(
    { toolCalls: [{ id: 's2', name: 'shell', arguments: { command: 'cp notes/agent.txt notes/agent2.txt' } }] },
    { toolCalls: [{ id: 's3', name: 'shell', arguments: { command: 'grep -rc TODO notes | head -n 5' } }] },
    { toolCalls: [{ id: 's4', name: 'shell', arguments: { command: 'cp readme.txt notes/y.txt && rm notes/agent2.txt' } }] },
    { text: 'Done.' },
  );
  await sendMessage(page, 'more');
  const again = page.getByRole('dialog', { name: 'Allow “shell”?' });
  await again.waitFor();
  await again.locator('.approval-args', { hasText: 'rm notes/agent2.txt' }).waitFor();
  // What will run comes first — the command, as written —, the tool's description after it.
  const order = await again.evaluate((d) =>
    [...d.querySelectorAll('h2, .approval-what, .approval-args, .approval-description')].map(
      (el) => `${el.className || el.tagName}: ${(el.textContent ?? '').slice(0, 60)}`,
    ),
  );
  assert.deepEqual(
    order.map((o) => o.split(':')[0]),
    ['H2', 'approval-what', 'approval-args', 'approval-description small'],
    order.join('\n'),
  );
  assert.equal(await again.locator('.approval-what dd').innerText(), 'cp readme.txt notes/y.txt && rm notes/agent2.txt');
  assert.equal(await again.locator('.approval-what dt').innerText(), 'Command');
  await again.getByRole('button', { name: 'Deny' }).click();
  await page.locator('.msg.assistant', { hasText: 'Done.' }).waitFor();
  assert.equal(await readWorkspaceFile(page, 'notes/agent2.txt'), 'hello\n', 'covered by the rule, not removed (denied)');
  const tools = llm.requests
    .at(-1)
    ?.body.messages.filter((/** @type {any} */ m) => m.role === 'tool')
    .slice(-3);
  assert.match(tools[1].content, /notes\/meeting\.md:2/);

  await page.keyboard.press('Alt+Digit6');
  const rule = page.getByRole('list', { name: 'Approval rules' }).getByRole('listitem').filter({ hasText: 'commands starting with “cp”' });
  await rule.waitFor();
  await rule.getByRole('button', { name: /Remove the rule/ }).click();
  await page.getByText('No rules yet.', { exact: false }).waitFor();
});
