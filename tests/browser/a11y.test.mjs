// Why this file is long: the accessibility scans share one app and page: every panel and inner
//  state in both themes and widths, and the Tab walks; split, each file would start its own app.
// Accessibility (issue 13), in the real page:
// - axe-core (a dev dependency, injected by the test only) finds no serious or critical
//   violation, in light and dark, on the chat (a reply, a tool card, an undone turn and a failed
//   reply with Retry), every panel of the navigation (PANEL_NAV) as it opens, the command palette,
//   the shortcuts list, Settings and the phone drawers at 1920, 1280 and 360 px; and on every
//   dialog kind (the approval dialog, the agent's question, a choice dialog, the "Loosen
//   protections?" confirmation, the export-format form, the New workspace dialog), the split view,
//   the Config panel with a problem, the home view and the panels' inner states (a file in the
//   editor, a Markdown preview, a Git diff, an open event and the replay bar, a schedule phrase's
//   preview, the Skills registry and install-from-URL forms, the Add server form, the New agent
//   form, the Add memory form and a listed memory) at 1280 and 360 px; and on issue 37's surfaces
//   (document chips in the composer, the artifacts pane beside the chat and full screen, the
//   goal delete confirmation, the restore success message) at 1280 and 360 px;
// - in all of those, no option of a visible select is cut (a select cannot wrap);
// - keyboard: from each panel's heading, Tab reaches every control of the panel in document
//   order, each with a visible focus indicator, and then leaves the panel (no trap; the
//   terminal's Tab completion is left with Esc then Tab, as its hint says);
// - prefers-reduced-motion: with "reduce" nothing animates or transitions (the terminal's
//   cursor stops blinking); with "no-preference" the cursor blinks (control).
// Each probe is first run against a planted fault, so an empty result means the page passed,
// not that the probe did not run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { sendMessage, writeWorkspaceFile, waitInPage, panelSays } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { PANEL_NAV } from '../../web/app/panel-nav.js';

const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

// A scripted model (OpenAI's wire format): tool calls, a question and a failure on cue.
const { app, llm, page } = await useFixture({
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai', model: 'gpt-4o', apiKey: 'sk-test-a11y-key', baseUrl: `${llm.url}/v1` }),
});

/**
 * The serious and critical violations on the page as it is now (a modal dialog limits the scan
 * to itself, as it does for assistive tech).
 * @returns {Promise<string[]>}
 */
async function violations() {
  // Evaluated over CDP (the app's CSP does not apply), once per document.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = /** @type {any} */ (window).axe; // any: axe-core's global, injected above
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((/** @type {any} */ v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((/** @type {any} */ v) => v.nodes.map((/** @type {any} */ n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${v.help}`));
  });
}

/**
 * Options of visible selects whose text does not fit the select (measured in its font, plus its
 * padding and the arrow): a select cannot wrap, so a long option is cut once chosen.
 * @returns {Promise<string[]>}
 */
function cutSelects() {
  return page.evaluate(() => {
    const ctx = /** @type {CanvasRenderingContext2D} */ (document.createElement('canvas').getContext('2d'));
    return [...document.querySelectorAll('select')]
      .filter((s) => s.checkVisibility())
      .flatMap((s) => {
        const cs = getComputedStyle(s);
        ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
        return [...s.options].flatMap((o) => {
          const text = o.textContent ?? '';
          const need = ctx.measureText(text).width + parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight) + 16;
          return need > s.clientWidth
            ? [
                `select "${s.getAttribute('aria-label') ?? s.labels?.[0]?.textContent ?? s.id}" cuts option "${text}" ` +
                  `(${Math.round(need)} > ${s.clientWidth} px)`,
              ]
            : [];
        });
      });
  });
}

/**
 * Each built-in panel as Playwright presses its shortcut (Alt+S is Alt+KeyS: a letter by its key's
 * position) with its heading and route, from the app's own navigation, so a new panel is scanned
 * and walked without being listed here.
 */
const PANELS = PANEL_NAV.map((p) => {
  const key = p.shortcut.replace(/^Alt\+/, '');
  return { key: /^[A-Z]$/.test(key) ? `Key${key}` : key, name: p.label, route: p.name };
});
const SCHEMES = /** @type {const} */ (['light', 'dark']);
/** A laptop and a phone: every dialog and state. */
const WIDTHS = [
  [1280, 800],
  [360, 780],
];
/** The chat and the panels also on a wide desktop. */
const PANEL_WIDTHS = [[1920, 1080], ...WIDTHS];

/** @type {string[]} */
const found = [];
/** @param {string} state */
async function scan(state) {
  for (const v of [...(await violations()), ...(await cutSelects())]) found.push(`${state}: ${v}`);
}

/** @param {'light' | 'dark'} scheme @param {number[]} size */
async function look(scheme, [width, height]) {
  await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
  await page.setViewportSize({ width, height });
}

/** Scans what is on screen (a dialog stays open) in both themes at both widths. @param {string} state */
async function scanEach(state) {
  for (const scheme of SCHEMES) {
    for (const size of WIDTHS) {
      await look(scheme, size);
      await scan(`${scheme} ${size[0]}px ${state}`);
    }
  }
  await look('light', WIDTHS[0]);
}

test('the scans report a planted violation and a planted cut option (control)', async () => {
  await page.evaluate(() => {
    const b = document.createElement('button');
    b.id = 'planted';
    const s = document.createElement('select');
    s.setAttribute('aria-label', 'Planted');
    s.style.width = '6rem';
    s.append(new Option('Short'), new Option('An option far too long for this narrow select'));
    document.querySelector('main')?.append(b, s);
  });
  const v = await violations();
  assert.ok(
    v.some((x) => x.startsWith('button-name (critical): #planted')),
    JSON.stringify(v),
  );
  // The chosen option fits; the other one does not.
  assert.deepEqual(
    (await cutSelects()).map((x) => x.replace(/ \(.*/, '')),
    ['select "Planted" cuts option "An option far too long for this narrow select"'],
  );
  await page.evaluate(() => document.querySelectorAll('#planted, select[aria-label="Planted"]').forEach((e) => e.remove()));
});

test('no serious or critical violation and no cut option on any panel, dialog or chat state, light and dark, \
360 px to 1920 px', async () => {
  // A reply, then a tool call waiting for approval (then a tool card).
  await sendMessage(page, 'hello **there**, a list:\n\n- one\n- two');
  await page.locator('.msg.assistant:not(.streaming)').waitFor();
  llm.enqueue({ toolCalls: [{ id: 'r1', name: 'run_js', arguments: { code: 'return 1 + 1;' } }] }, { text: 'It is two.' });
  await sendMessage(page, 'add one and one');
  const approval = page.getByRole('dialog', { name: /Allow “run_js”/ });
  await approval.waitFor();
  await scanEach('approval dialog');
  await approval.getByRole('button', { name: 'Allow once' }).click();
  await page.locator('.tool-card').first().waitFor();
  await page.getByText('It is two.').waitFor();
  // The agent's question.
  llm.enqueue(
    { toolCalls: [{ id: 'q1', name: 'ask_user', arguments: { question: 'Which colour?', choices: ['Red', 'Blue'] } }] },
    { text: 'Blue it is.' },
  );
  await sendMessage(page, 'pick a colour with me');
  const ask = page.getByRole('dialog', { name: 'The agent asks' });
  await ask.getByText('Which colour?').waitFor();
  await scanEach('question dialog');
  await ask.getByRole('button', { name: 'Blue' }).click();
  await page.getByText('Blue it is.').waitFor();
  // A choice dialog: undoing a turn whose file was changed since.
  llm.enqueue(
    { toolCalls: [{ id: 'w1', name: 'fs_write', arguments: { path: 'a11y.md', content: 'by the agent' } }] },
    { text: 'Wrote it.' },
  );
  await sendMessage(page, 'write a file');
  await page
    .getByRole('dialog', { name: /Allow “fs_write”/ })
    .getByRole('button', { name: 'Allow once' })
    .click();
  await page.getByText('Wrote it.').waitFor();
  await writeWorkspaceFile(page, 'a11y.md', 'edited by the user');
  await page.locator('li.turn-undo').getByRole('button', { name: 'Undo turn' }).click();
  const choice = page.getByRole('dialog', { name: 'Undo: changed since the turn' });
  await choice.waitFor();
  await scanEach('choice dialog');
  await choice.getByRole('button', { name: 'Keep their changes' }).click();
  await page.locator('li.turn-undone').waitFor();
  // A form dialog: the export format, from the command palette.
  await page.keyboard.press('Control+k');
  await page.getByRole('combobox', { name: 'Search actions' }).fill('Export this conversation');
  await page.keyboard.press('Enter');
  const form = page.getByRole('dialog', { name: /Export/ });
  await form.getByLabel('Format').waitFor();
  await scanEach('export form dialog');
  await page.keyboard.press('Escape');
  await form.waitFor({ state: 'detached' });
  // A failed reply (its alert with Retry) stays in the chat scanned below.
  for (let i = 0; i < 3; i++) llm.enqueue({ status: 500, body: { error: { message: 'boom' } } });
  await sendMessage(page, 'this one fails');
  await page.getByRole('alert').filter({ hasText: 'The reply failed' }).getByRole('button', { name: 'Retry' }).waitFor();

  for (const scheme of SCHEMES) {
    for (const size of PANEL_WIDTHS) {
      const where = `${scheme} ${size[0]}px`;
      await look(scheme, size);
      await page.keyboard.press('Alt+0');
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      await scan(`${where} chat with a failed reply`);
      for (const { key, name, route } of PANELS) {
        await page.keyboard.press(`Alt+${key}`);
        // The panel's own heading (the previous panel's would match a looser wait).
        await page.getByRole('heading', { name, exact: true }).waitFor();
        await page.waitForURL(new RegExp(`/${route}$`));
        await page.waitForLoadState('networkidle');
        // The panel as it shows once loaded (the Git panel's first read fills it in later), not a half-drawn one.
        await waitInPage(page, async () => !document.querySelector('#main [aria-busy="true"]'), undefined, {
          what: `the ${name} panel to finish loading`,
        });
        await scan(`${where} ${name}`);
      }
      await page.keyboard.press('Alt+0');
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      if (size[0] === 360) {
        await page.getByRole('button', { name: 'Menu' }).click();
        await page.getByRole('navigation', { name: 'Workspace panels' }).waitFor();
        await scan(`${where} menu drawer`);
        await page.keyboard.press('Escape');
        await page.getByRole('button', { name: 'Conversations' }).click();
        await page.getByRole('searchbox', { name: 'Search conversations' }).waitFor();
        await scan(`${where} conversations drawer`);
        await page.keyboard.press('Escape');
      }
      await page.keyboard.press('Control+k');
      await page.getByRole('dialog', { name: 'Command palette' }).waitFor();
      await scan(`${where} command palette`);
      await page.keyboard.press('Escape');
      await page.evaluate(() => /** @type {HTMLElement | null} */ (document.activeElement)?.blur());
      await page.keyboard.press('?');
      await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
      await scan(`${where} shortcuts`);
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      await page.getByRole('dialog', { name: /Settings/ }).waitFor();
      await scan(`${where} settings`);
      await page.keyboard.press('Escape');
      await page.getByRole('dialog', { name: /Settings/ }).waitFor({ state: 'detached' });
    }
  }
  // The chat beside Files; the Config panel with problems, and its confirmation dialog.
  await look('light', WIDTHS[0]);
  await page.keyboard.press('Alt+1');
  await page.getByRole('button', { name: 'Chat beside this panel' }).click();
  await page.getByRole('separator', { name: 'Resize the chat and Files' }).waitFor();
  await scanEach('split view');
  await page.getByRole('button', { name: 'Chat beside this panel' }).click();
  await page.getByRole('separator', { name: 'Resize the chat and Files' }).waitFor({ state: 'detached' });
  await page.keyboard.press('Alt+9');
  const editor = page.getByRole('textbox', { name: 'Configuration (JSON)' });
  const doc = JSON.parse(await editor.inputValue());
  await editor.fill(JSON.stringify({ ...doc, agent: { ...doc.agent, maxIterations: 0 } }, null, 2));
  await page.getByText(/1 problem: nothing is saved/).waitFor();
  await scanEach('config with a problem');
  await editor.fill(JSON.stringify({ ...doc, agent: { ...doc.agent, safetyEnabled: false } }, null, 2));
  await page.getByRole('button', { name: 'Save configuration' }).click();
  const loosen = page.getByRole('dialog', { name: 'Loosen protections?' });
  await loosen.waitFor();
  await scanEach('confirmation dialog');
  await loosen.getByRole('button', { name: 'Cancel' }).click();
  await loosen.waitFor({ state: 'detached' });
  // The home view and its dialog.
  await page.goto(`${app.url}#`);
  await page.getByRole('button', { name: 'New workspace' }).waitFor();
  await scanEach('home');
  await page.getByRole('button', { name: 'New workspace' }).click();
  await page.getByRole('dialog').waitFor();
  await scanEach('new workspace dialog');
  await page.keyboard.press('Escape');
  assert.deepEqual(found, []);
});

/**
 * Walks the open panel with Tab from its heading, and says
 * what is wrong: a control Tab skips, one reached out of document order, one without a visible
 * focus indicator, or a trap (Tab, and Esc then Tab, keep focus where it is). Focus indicators
 * are told by comparing each element's outline and box-shadow, and its ancestors' (a terminal's
 * frame shows its hidden input's focus), with how they were before the walk. `changed`: the
 * panel's controls changed during the walk (its verdict is then about a panel no longer there).
 * @param {string} heading
 * @returns {Promise<{problems: string[], visited: string[], changed: boolean}>}
 */
async function walkPanel(heading) {
  await page.evaluate(() => {
    // Nothing focused (a panel may focus its first field when shown): the styles without focus.
    /** @type {HTMLElement | null} */ (document.activeElement)?.blur();
    const main = /** @type {HTMLElement} */ (document.getElementById('main'));
    /** @type {Map<Element, string>} */
    const before = new Map();
    for (const el of main.querySelectorAll('*')) {
      const cs = getComputedStyle(el);
      before.set(el, `${cs.outlineStyle} ${cs.outlineWidth} ${cs.outlineColor} | ${cs.boxShadow}`);
    }
    const walk = {
      before,
      seen: [],
      previous: null,
      changed: false,
      note: (/** @type {MutationRecord[]} */ _records) => {},
      observer: /** @type {MutationObserver | null} */ (null),
    };
    // A panel that adds or replaces controls while walked (still loading on a busy machine)
    // makes the walk's verdict about elements no longer there: the caller walks it again.
    const CONTROLS = 'a[href], button, input, select, textarea, summary, [tabindex]';
    const control = (/** @type {Node} */ n) => n instanceof Element && (n.matches(CONTROLS) || !!n.querySelector(CONTROLS));
    walk.note = (/** @type {MutationRecord[]} */ records) => {
      if (records.some((r) => [...r.addedNodes, ...r.removedNodes].some(control))) walk.changed = true;
    };
    walk.observer = new MutationObserver(walk.note);
    walk.observer.observe(main, { childList: true, subtree: true });
    /** @type {any} */ (window).__walk = walk; // any: the walk's state, kept in the page between key presses
  });
  // A click on the heading's text puts the start of sequential focus navigation there.
  await page.getByRole('heading', { name: heading, exact: true }).click();
  /** @type {string[]} */
  const problems = [];
  /** @type {string[]} */
  const visited = [];
  for (let presses = 0; presses < 300; presses++) {
    await page.keyboard.press('Tab');
    let step = await page.evaluate(walkStep);
    if (step.stuck) {
      // Tab is taken by the control (the terminal's completion): its documented way out.
      await page.keyboard.press('Escape');
      await page.keyboard.press('Tab');
      step = await page.evaluate(walkStep);
      if (step.stuck) {
        problems.push(`focus trapped in ${step.name}`);
        break;
      }
    }
    if (step.left) break;
    visited.push(step.name);
    problems.push(...step.problems);
  }
  const changed = await page.evaluate(() => {
    const walk = /** @type {any} */ (window).__walk; // any: the walk's state, kept in the page between key presses
    walk.note(walk.observer.takeRecords());
    walk.observer.disconnect();
    return walk.changed;
  });
  problems.push(
    ...(await page.evaluate(() => {
      const walk = /** @type {any} */ (window).__walk; // any: the walk's state, kept in the page between key presses
      const main = /** @type {HTMLElement} */ (document.getElementById('main'));
      const heading = main.querySelector('h2');
      const controls = [...main.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')].filter((el) => {
        const c = /** @type {HTMLElement & {disabled?: boolean}} */ (el);
        if (c.tabIndex < 0 || c.disabled || c.closest('[inert]') || !c.checkVisibility({ visibilityProperty: true })) return false;
        if (heading && !(heading.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING)) return false;
        const closed = c.parentElement?.closest('details:not([open])');
        if (closed && !(c.tagName === 'SUMMARY' && c.parentElement === closed)) return false;
        // A radio group is one Tab stop.
        if (c instanceof HTMLInputElement && c.type === 'radio' && c.name) {
          const group = [...main.querySelectorAll(`input[type="radio"][name="${CSS.escape(c.name)}"]`)];
          return group.some((r) => /** @type {HTMLInputElement} */ (r).checked) ? c.checked : group[0] === c;
        }
        return true;
      });
      return [
        ...(walk.left ? [] : ['focus never left the panel']),
        ...controls
          .filter((c) => !walk.seen.includes(c))
          .map(
            (c) =>
              `Tab never reaches ${c.tagName.toLowerCase()} "${(c.getAttribute('aria-label') ?? c.textContent ?? '').trim().slice(0, 40)}"`,
          ),
      ];
    })),
  );
  return { problems, visited, changed };
}

/**
 * One Tab press of the walk, seen from the page.
 * @returns {{left: boolean, stuck: boolean, name: string, problems: string[]}}
 */
function walkStep() {
  const walk = /** @type {any} */ (window).__walk; // any: the walk's state, kept in the page between key presses
  const main = /** @type {HTMLElement} */ (document.getElementById('main'));
  const el = document.activeElement;
  if (!el || el === document.body || !main.contains(el)) {
    walk.left = true;
    return { left: true, stuck: false, name: '', problems: [] };
  }
  const labels = /** @type {HTMLInputElement} */ (el).labels;
  const name =
    `${el.tagName.toLowerCase()} ` +
    `"${(el.getAttribute('aria-label') ?? labels?.[0]?.textContent ?? el.textContent ?? '').trim().slice(0, 40)}"`;
  if (el === walk.previous) return { left: false, stuck: true, name, problems: [] };
  /** @type {string[]} */
  const problems = [];
  if (walk.previous && !(walk.previous.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING))
    problems.push(`Tab goes back from ${walk.previousName} to ${name}`);
  /** @type {Element | null} */
  let shown = null;
  for (let e = /** @type {Element | null} */ (el); e && e !== main && !shown; e = e.parentElement) {
    const cs = getComputedStyle(e);
    const now = `${cs.outlineStyle} ${cs.outlineWidth} ${cs.outlineColor} | ${cs.boxShadow}`;
    const marked = (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) || cs.boxShadow !== 'none';
    if (marked && now !== walk.before.get(e)) shown = e;
  }
  if (!shown) problems.push(`${name} shows no focus indicator`);
  walk.seen.push(el);
  walk.previous = el;
  walk.previousName = name;
  return { left: false, stuck: false, name, problems };
}

test('keyboard: the walk reports a control without a focus indicator, one Tab skips and a trap (control)', async () => {
  await page.goto(`${app.url}#`);
  await page.getByRole('link', { name: /My workspace/ }).click();
  await look('light', WIDTHS[0]);
  await page.keyboard.press('Alt+3');
  await page.getByRole('heading', { name: 'Memory', exact: true }).waitFor();
  await page.evaluate(() => {
    const heading = /** @type {HTMLElement} */ (document.querySelector('#main h2'));
    const plain = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Planted plain' });
    plain.style.cssText = 'outline: none; box-shadow: none';
    // Out of the Tab order while the walk passes it, a control Tab should reach once it is over.
    const skipped = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Planted skipped', tabIndex: -1 });
    const trap = Object.assign(document.createElement('input'), { type: 'text' });
    trap.setAttribute('aria-label', 'Planted trap');
    trap.addEventListener('keydown', (e) => {
      if (e.key === 'Tab') e.preventDefault();
    });
    heading.after(plain, skipped, trap);
    trap.addEventListener('focus', () => {
      skipped.tabIndex = 0;
    });
    // A control the panel adds while it is walked (as a panel still loading does).
    trap.addEventListener(
      'focus',
      () => {
        heading.after(Object.assign(document.createElement('button'), { type: 'button', textContent: 'Planted late' }));
      },
      { once: true },
    );
  });
  const { problems, changed } = await walkPanel('Memory');
  assert.equal(changed, true, 'a control added during the walk is noticed (the walk is then redone)');
  assert.ok(problems.includes('button "Planted plain" shows no focus indicator'), JSON.stringify(problems));
  assert.ok(problems.includes('focus trapped in input "Planted trap"'), JSON.stringify(problems));
  assert.ok(problems.includes('focus never left the panel'), JSON.stringify(problems));
  assert.ok(problems.includes('Tab never reaches button "Planted skipped"'), JSON.stringify(problems));
  await page.evaluate(() => document.querySelectorAll('#main h2 ~ button, #main h2 ~ input').forEach((e) => e.remove()));
});

test("keyboard: from each panel's heading Tab reaches its controls in order, each with a visible focus, and leaves the panel", async () => {
  /** @type {string[]} */
  const problems = [];
  for (const { key, name, route } of PANELS) {
    await page.keyboard.press(`Alt+${key}`);
    await page.getByRole('heading', { name, exact: true }).waitFor();
    await page.waitForURL(new RegExp(`/${route}$`));
    await page.waitForLoadState('networkidle');
    // A panel still reading what it shows (the Git panel's first read of the repository) fills in later.
    await waitInPage(page, async () => !document.querySelector('#main [aria-busy="true"]'), undefined, {
      what: `the ${name} panel to finish loading`,
    });
    // A walk over a panel whose controls changed under it (still filling in) is walked again.
    let walk = await walkPanel(name);
    for (let again = 0; walk.changed && again < 5; again++) walk = await walkPanel(name);
    if (walk.changed) problems.push(`${name}: its controls kept changing during five walks`);
    // A walk that reached nothing would pass vacuously.
    if (!walk.visited.length) problems.push(`${name}: Tab reached no control`);
    problems.push(...walk.problems.map((p) => `${name}: ${p}`));
  }
  assert.deepEqual(problems, []);
  // The terminal says how to leave it.
  await page.keyboard.press('Alt+KeyT');
  await page.getByText(/Esc then Tab moves on/).waitFor();
});

test('prefers-reduced-motion: with "reduce" nothing animates or transitions; with "no-preference" the terminal\'s cursor blinks \
(control)', async () => {
  await page.keyboard.press('Alt+KeyT');
  await page.locator('.terminal-host textarea').waitFor();
  await page.locator('.terminal-host textarea').focus();
  /** The elements (and pseudo-elements) with a non-zero animation or transition. */
  const moving = () =>
    page.evaluate(() => {
      const longest = (/** @type {string} */ list) =>
        Math.max(...list.split(',').map((d) => parseFloat(d) * (d.trim().endsWith('ms') ? 1 : 1000)));
      return [...document.querySelectorAll('*')].flatMap((el) =>
        [null, '::before', '::after'].flatMap((pseudo) => {
          const cs = getComputedStyle(el, pseudo);
          const animated = cs.animationName !== 'none' && longest(cs.animationDuration) > 0;
          const transitioned = cs.transitionProperty !== 'none' && longest(cs.transitionDuration) > 0;
          return animated || transitioned ? [`${el.tagName.toLowerCase()}.${[...el.classList].join('.')}${pseudo ?? ''}`] : [];
        }),
      );
    });
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  await waitInPage(page, async () => document.querySelector('.xterm-cursor-blink') !== null, undefined, { what: 'the blinking cursor' });
  const control = await moving();
  assert.ok(
    control.some((m) => m.includes('xterm-cursor-blink')),
    JSON.stringify(control),
  );
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await waitInPage(page, async () => document.querySelector('.xterm-cursor-blink') === null, undefined, {
    what: 'the cursor to stop blinking',
  });
  assert.deepEqual(await moving(), []);
});

/** Opens a panel by its shortcut and waits for its heading. @param {string} label */
async function openPanel(label) {
  const panel = PANELS.find((p) => p.name === label);
  assert.ok(panel, `a panel labelled ${label}`);
  await page.keyboard.press(`Alt+${panel.key}`);
  await page.getByRole('heading', { name: label, exact: true }).waitFor();
  await page.waitForURL(new RegExp(`/${panel.route}$`));
}

test("no serious or critical violation and no cut option in the panels' inner states (editor, preview, diff, replay, schedule preview, \
add forms, a memory, a channel), light and dark, 360 and 1280 px", async () => {
  found.length = 0;
  await look('light', WIDTHS[0]);
  await writeWorkspaceFile(page, 'inner.js', '// the answer\nexport const answer = 42;\nfunction twice(n) { return `${n * 2}`; }\n');
  await writeWorkspaceFile(
    page,
    'inner.md',
    '# Notes\n\nSome **bold**, a [link](https://example.com) and `code`.\n\n> A ' +
      'quote.\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n```js\nconst x = 1;\n```\n',
  );

  // Files: a file in the editor (syntax colours), then a Markdown preview.
  await openPanel('Files');
  await page.getByRole('button', { name: 'inner.js', exact: true }).click();
  await page.locator('.editor-holder .cm-line', { hasText: 'answer = 42' }).waitFor();
  await scanEach('files: a file in the editor');
  await page.getByRole('button', { name: 'inner.md', exact: true }).click();
  await page.getByRole('button', { name: 'Preview' }).click();
  await page.locator('.file-preview table').waitFor();
  await scanEach('files: a Markdown preview');

  // Git: a committed file changed since, its diff shown.
  await openPanel('Git');
  await page.getByRole('button', { name: 'Stage inner.js' }).click();
  await page.getByLabel(/Commit message/).fill('Add the app');
  await page.getByRole('button', { name: 'Commit', exact: true }).click();
  await panelSays(page, /Committed [0-9a-f]{7}\./);
  await writeWorkspaceFile(page, 'inner.js', '// the answer\nexport const answer = 43;\nfunction twice(n) { return `${n * 2}`; }\n');
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.getByRole('button', { name: /modified inner\.js/ }).click();
  await page.locator('.diff-table tr.del', { hasText: 'answer = 42' }).waitFor();
  await page.locator('.diff-table tr.add', { hasText: 'answer = 43' }).waitFor();
  await scanEach('git: a diff');

  // Events: an event opened, then the replay bar (its current event open too), in a conversation
  // of its own (this test runs alone too).
  await page.keyboard.press('Alt+0');
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  // The new conversation on screen first: else the wait below may read the earlier one's replies.
  await page.getByText('Start the conversation: type a message below.').waitFor();
  await sendMessage(page, 'a turn for the events panel');
  await page.locator('.msg.assistant:not(.streaming)').waitFor();
  await openPanel('Events');
  const rows = page.getByRole('list', { name: 'Events' }).getByRole('listitem');
  await rows.first().locator('summary').click();
  await rows.first().locator('pre').filter({ hasText: /\S/ }).waitFor();
  await page.getByRole('button', { name: 'Replay step by step' }).click();
  await page.getByRole('button', { name: 'Next event' }).click();
  await page.getByText(/^Event 2 of \d+$/).waitFor();
  await scanEach('events: an open event and the replay bar');
  await page.getByRole('button', { name: 'End replay' }).click();

  // Schedule: a phrase typed in the form, with its preview.
  await openPanel('Schedule');
  await page.getByLabel('When', { exact: true }).fill('every 15 minutes');
  await page.getByText('Means: every 15 minute(s). Next 5 runs:').waitFor();
  await scanEach("schedule: a phrase's preview");

  // Skills: the registry form opened and turned on, and the install-from-URL form.
  await openPanel('Skills');
  await page.getByText('Updates from a registry').click();
  await page.getByLabel('Check a registry for updates').check();
  await page.getByLabel('Registry index URL').fill('https://skills.example/index.json');
  await scanEach('skills: the registry form');
  await page.getByRole('button', { name: 'Install from URL' }).click();
  const fromUrl = page.getByRole('dialog', { name: 'Install a skill from a URL' });
  await fromUrl.getByLabel('Skill URL').waitFor();
  await scanEach('skills: install from a URL');
  await page.keyboard.press('Escape');
  await fromUrl.waitFor({ state: 'detached' });

  // Servers: the add form (a dialog), with the header sign-in chosen.
  await openPanel('Servers');
  await page.getByRole('button', { name: 'Add server' }).click();
  const addServer = page.getByRole('dialog', { name: 'Add an MCP server' });
  await addServer.getByLabel('Sign-in').selectOption('header');
  await scanEach('servers: the add form');
  await page.keyboard.press('Escape');
  await addServer.waitFor({ state: 'detached' });

  // Agents: the New agent form, inline.
  await openPanel('Agents');
  await page.getByRole('button', { name: 'New agent' }).click();
  const agentForm = page.getByRole('form', { name: 'New agent' });
  await agentForm.getByLabel('Name (what you type after @)').fill('Writer');
  await agentForm
    .getByRole('alert')
    .getByText(/^name: /)
    .waitFor();
  await scanEach('agents: the New agent form with a problem');

  // Channels: a webhook channel listed (its buttons and traffic), and the form switched to an incoming webhook.
  await openPanel('Channels');
  await page.getByLabel('Kind', { exact: true }).selectOption('webhook');
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill('results');
  await page.getByLabel('Webhook address (https://…; kept sealed)').fill('https://hooks.example.com/x');
  await page.getByRole('button', { name: 'Add channel' }).click();
  await page.getByRole('listitem', { name: 'results', exact: true }).waitFor();
  await page.getByLabel('Kind', { exact: true }).selectOption('hook');
  await scanEach('channels: a channel listed, the incoming webhook form');

  // Memory: its add form (a dialog), then the memory listed.
  await openPanel('Memory');
  await page.getByRole('button', { name: 'Add memory' }).click();
  const newMemory = page.getByRole('dialog', { name: 'New memory' });
  await newMemory.getByLabel(/^Key/).fill('deploy day');
  await newMemory.getByLabel('Content').fill('Releases go out on Thursdays after the standup.');
  await scanEach('memory: the add form');
  await newMemory.getByRole('button', { name: 'Remember' }).click();
  await page.locator('.memory', { hasText: 'deploy day' }).waitFor();
  await scanEach('memory: a memory listed');
  assert.deepEqual(found, []);
});

test('no serious or critical violation and no cut option on the surfaces of issue 37 (document chips in the composer, the \
artifacts pane beside the chat and full screen, the goal delete confirmation, the restore success message), light and dark, \
360 and 1280 px', async () => {
  found.length = 0;
  await look('light', WIDTHS[0]);
  await page.keyboard.press('Alt+0');
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  // Two documents picked through the composer's own file input (what "Attach file" opens).
  await page.locator('form.composer input[type=file]').setInputFiles([
    { name: 'orders.md', mimeType: 'text/markdown', buffer: Buffer.from('# Orders\n\n- 12 apples\n- 7 pears\n') },
    { name: 'counts.csv', mimeType: 'text/csv', buffer: Buffer.from('fruit,count\napples,12\npears,7\n') },
  ]);
  const chips = page.getByRole('list', { name: 'Attachments' });
  await chips.getByText('orders.md').waitFor();
  await chips.getByText('counts.csv').waitFor();
  await scanEach('composer: two document chips');

  // An artifact the reply makes, beside the chat, then full screen.
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60"><circle cx="30" cy="30" r="20" fill="teal"/>' +
    '<text x="60" y="35">Dot</text></svg>';
  llm.enqueue({ text: `A drawing of the orders:\n\n\`\`\`svg\n${svg}\n\`\`\`\n` });
  await sendMessage(page, 'draw the orders');
  const pane = page.getByRole('complementary', { name: 'Artifact' });
  await pane.locator('iframe[title="Artifact svg-1"]').and(page.locator('[data-state="rendered"]')).waitFor();
  await pane.getByText('svg-1 · version 1 of 1').waitFor();
  await scanEach('the artifacts pane beside the chat');
  await pane.getByRole('button', { name: 'Full screen' }).click();
  await pane.getByRole('button', { name: 'Full screen', pressed: true }).waitFor();
  await scanEach('an artifact full screen');
  await page.keyboard.press('Escape');
  await pane.getByRole('button', { name: 'Full screen', pressed: false }).waitFor();
  await pane.getByRole('button', { name: 'Close artifact' }).click();
  await pane.waitFor({ state: 'detached' });

  // Goals: the confirmation before a goal and its sub-goals are deleted.
  await openPanel('Goals');
  await page.getByLabel('New goal').fill('Tidy the backlog');
  await page.getByRole('button', { name: 'Add goal' }).click();
  await page.locator('.goal', { hasText: 'Tidy the backlog' }).waitFor();
  await page.getByRole('button', { name: 'Delete Tidy the backlog' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete goal' });
  await confirm.getByRole('button', { name: 'Delete' }).waitFor();
  await scanEach('goals: the delete confirmation');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await confirm.waitFor({ state: 'detached' });

  // The message a finished restore leaves for the page it reloads to (the restore itself is
  // backup.test's: here its message, as that page shows it).
  const said = 'Backup restored: 1 workspace(s) (My workspace), 12 files, 1 API key(s).';
  await page.evaluate((text) => localStorage.setItem('clawser_restore_done', JSON.stringify(text)), said);
  await page.reload();
  await page.getByRole('status').filter({ hasText: said }).waitFor();
  await scanEach('the restore success message');
  assert.deepEqual(found, []);
});
