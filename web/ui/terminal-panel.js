/** @import { Shell } from '../shell/shell.js' */
/** @import { CompletionSource, Completion } from '../shell/completion.js' */
/** @import { LineEditor } from '../shell/line-editor.js' */
import { Terminal, FitAddon } from '@clawser/terminal';
import { h } from './dom.js';
import { panelLayout } from './panel-layout.js';
import { icon } from './icon.js';

/**
 * What the panel gets: the workspace's sessions and history, and completion. No shell logic
 * lives here: the panel turns keys into line edits, runs finished lines and prints results.
 * @typedef {object} TerminalPanelProps
 * @property {TerminalSession[]} sessions live sessions of the workspace (kept by the app)
 * @property {() => TerminalSession} newSession
 * @property {(id: number) => void} closeSession
 * @property {() => string[]} history the workspace's history, oldest first
 * @property {(line: string) => void} remember
 * @property {() => void} clearHistory
 * @property {(shell: Shell) => CompletionSource} completionSource
 * @property {(line: string, cursor: number, source: CompletionSource) => Promise<Completion>} complete
 * @property {(options: {prompt: string, history: string[]}) => LineEditor} lineEditor a session's line editing (keys → edits, history)
 * @property {{screenReader: boolean}} preferences
 * @property {(p: {screenReader: boolean}) => void} onPreferences
 * @property {() => void} onBack
 */

/**
 * A shell on one of the user's machines that `wsh connect` opened in a session: the panel hands
 * it the keys and shows its output until it ends. `mode` 'pty': a real terminal there (keys go as
 * they are, Ctrl-C included); 'pipe': no terminal there, so the panel echoes and edits the line
 * itself and Ctrl-C is `interrupt()`.
 * @typedef {object} RemoteSession
 * @property {string} name the machine
 * @property {'pty' | 'pipe'} mode
 * @property {AsyncIterable<{type: 'stdout' | 'stderr', data: Uint8Array}>} output ends when the shell exits; throws when the
 *   connection drops
 * @property {Promise<{exitCode: number, signal: string | null}>} exited
 * @property {(data: string) => Promise<void>} write
 * @property {() => Promise<void>} end end of input (Ctrl-D on pipes)
 * @property {(cols: number, rows: number) => Promise<void>} resize
 * @property {() => Promise<void>} interrupt Ctrl-C
 * @property {() => void} close hangs up (the session's shell again)
 * @property {(fn: (text: string) => void) => () => void} onNotice the connection's news (dropped, reconnected)
 */

/** @typedef {{id: number, shell: Shell, remote?: RemoteSession | null}} TerminalSession */

/**
 * xterm's theme: each colour is a design token of styles.css (`--terminal-*`, a light and a dark
 * value), read as the page has it now — xterm draws on its own and needs the values, not `var()`.
 */
const THEME_TOKENS = /** @type {const} */ ({
  background: '--terminal-bg',
  foreground: '--terminal-fg',
  cursor: '--terminal-cursor',
  cursorAccent: '--terminal-cursor-text',
  selectionBackground: '--terminal-selection',
  black: '--terminal-black',
  red: '--terminal-red',
  green: '--terminal-green',
  yellow: '--terminal-yellow',
  blue: '--terminal-blue',
  magenta: '--terminal-magenta',
  cyan: '--terminal-cyan',
  white: '--terminal-white',
  brightBlack: '--terminal-bright-black',
  brightRed: '--terminal-bright-red',
  brightGreen: '--terminal-bright-green',
  brightYellow: '--terminal-bright-yellow',
  brightBlue: '--terminal-bright-blue',
  brightMagenta: '--terminal-bright-magenta',
  brightCyan: '--terminal-bright-cyan',
  brightWhite: '--terminal-bright-white',
});

/** The theme's colours from the tokens in the page's current theme (light or dark). */
function themeFromTokens() {
  const style = getComputedStyle(document.documentElement);
  /** @type {Record<string, string>} */
  const theme = {};
  for (const [key, token] of Object.entries(THEME_TOKENS)) theme[key] = style.getPropertyValue(token).trim();
  return theme;
}

/** xterm's stylesheet, added once with the first terminal. */
function ensureTerminalStyles() {
  if (document.querySelector('link[data-xterm]')) return;
  document.head.append(h('link', { rel: 'stylesheet', href: new URL('../vendor/xterm.css', import.meta.url).href, 'data-xterm': '' }));
}

/** @param {string} cwd */
const promptFor = (cwd) => `\x1b[1;32mclawser\x1b[0m:\x1b[1;34m${cwd}\x1b[0m$ `;

/**
 * One session's view: its xterm, line editor, and the run in progress.
 * @param {TerminalSession} session @param {TerminalPanelProps} props
 * @param {MediaQueryList} dark the theme: a change reads the tokens again
 * @param {MediaQueryList} reducedMotion the cursor blinks only when motion is welcome
 */
function SessionView(session, props, dark, reducedMotion) {
  const { shell } = session;
  const element = h('div', { class: 'terminal-host', role: 'region', 'aria-label': `Terminal session ${session.id}` });
  const term = new Terminal({
    convertEol: true,
    cursorBlink: !reducedMotion.matches,
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
    fontSize: 14,
    scrollback: 5000,
    screenReaderMode: props.preferences.screenReader,
    theme: themeFromTokens(),
  });
  const fit = new FitAddon();
  term.loadAddon(fit);
  const editor = props.lineEditor({ prompt: promptFor(shell.cwd), history: props.history() });
  /** @type {AbortController | null} the running line's Ctrl-C */
  let running = null;
  let opened = false;

  const prompt = () => {
    editor.prompt = promptFor(shell.cwd);
    editor.reset();
    term.write(editor.render());
  };

  /** @param {string} command */
  const runLine = async (command) => {
    if (!command.trim()) return prompt();
    // An unfinished line (an open quote, `do` without `done`) continues on a "> " prompt.
    try {
      shell.parse(command);
    } catch (err) {
      if (/unexpected (EOF|end of file)|unterminated|expected .*(done|fi|esac|\}|\))/i.test(/** @type {Error} */ (err).message)) {
        editor.continueWith(editor.line);
        term.write(editor.render());
        return;
      }
    }
    editor.remember(command);
    props.remember(command);
    if (/^\s*clear\s*$/.test(command)) {
      term.clear();
      return prompt();
    }
    if (/^\s*history\s+-c\s*$/.test(command)) {
      props.clearHistory();
      editor.history.length = 0;
    }
    running = new AbortController();
    element.setAttribute('aria-busy', 'true');
    try {
      const r = await shell.run(command, { signal: running.signal });
      if (r.stdout) term.write(r.stdout);
      if (r.stderr) term.write(`\x1b[31m${r.stderr}\x1b[0m`);
      if ((r.stdout || r.stderr) && !/\n$/.test(r.stderr || r.stdout)) term.write('\x1b[7m%\x1b[0m\r\n');
    } catch (err) {
      term.write(`\x1b[31mclawser: ${/** @type {Error} */ (err)?.message ?? String(err)}\x1b[0m\r\n`);
    } finally {
      running = null;
      element.removeAttribute('aria-busy');
    }
    if (session.remote) await attach(session.remote);
    prompt();
  };

  /** The remote shell the keys go to (`wsh connect`), while it lasts. @type {RemoteSession | null} */
  let remote = null;
  /** The line typed so far to a remote shell on pipes (no terminal there to echo and edit it). */
  let pipeLine = '';
  /** @param {string} text */
  const notice = (text) => term.write(`\r\n\x1b[33m[${text}]\x1b[0m\r\n`);
  /** @param {unknown} err */
  const quietly = (err) => notice(`wsh: ${/** @type {Error} */ (err)?.message ?? String(err)}`);
  /** Shows a remote shell and gives it the keys until it ends. @param {RemoteSession} r */
  const attach = async (r) => {
    remote = r;
    pipeLine = '';
    const off = r.onNotice(notice);
    r.resize(term.cols, term.rows).catch(quietly);
    /** @type {string} */
    let ending;
    try {
      for await (const part of r.output) term.write(part.data);
      const { exitCode, signal } = await r.exited;
      ending = `The session on ${r.name} ended (exit code ${exitCode}${signal ? `, ${signal}` : ''}).`;
    } catch (err) {
      const message = /** @type {Error} */ (err)?.message ?? String(err);
      ending = `The session on ${r.name} ended: ${message} Run wsh connect ${r.name} for a new one.`;
    } finally {
      off();
      remote = null;
      r.close();
    }
    notice(ending);
  };
  /** Keys for a remote shell. @param {RemoteSession} r @param {string} data */
  const toRemote = (r, data) => {
    if (data === '\x03') return void r.interrupt().catch(quietly);
    if (r.mode === 'pty') return void r.write(data).catch(quietly);
    // Pipes: echo and edit the line here, send it whole on Enter.
    for (const c of data) {
      if (c === '\r' || c === '\n') {
        term.write('\r\n');
        void r.write(`${pipeLine}\n`).catch(quietly);
        pipeLine = '';
      } else if (c === '\x7f' || c === '\b') {
        if (pipeLine) term.write('\b \b');
        pipeLine = Array.from(pipeLine).slice(0, -1).join('');
      } else if (c === '\x04' && !pipeLine) void r.end().catch(quietly);
      else if (c >= ' ') {
        pipeLine += c;
        term.write(c);
      }
    }
  };

  /** @param {number} cursor */
  const tabComplete = async (cursor) => {
    const line = editor.line;
    const c = await props.complete(line, cursor, props.completionSource(shell));
    if (!c.matches.length) return term.write('\x07');
    if (c.matches.length === 1) {
      const [only] = c.matches;
      const suffix = only.endsWith('/') ? '' : `${c.quote} `;
      editor.setLine(line.slice(0, c.start) + only + suffix + line.slice(cursor));
      editor.cursor = c.start + Array.from(only + suffix).length;
    } else if (c.common.length > c.word.length) {
      editor.setLine(line.slice(0, c.start) + c.common + line.slice(cursor));
      editor.cursor = c.start + Array.from(c.common).length;
    } else {
      // Nothing more in common: list the choices under the line, then the line again.
      term.write(`${editor.leave()}${c.matches.map((m) => m.replace(/^.*\/(?=.)/, '')).join('  ')}\r\n`);
    }
    term.write(editor.render());
  };

  /** Keys typed (or lines pasted) while a line runs: fed in once it ends, like a real terminal's type-ahead. */
  let typeahead = '';
  /** @param {string} data */
  const handle = (data) => {
    if (remote) return toRemote(remote, data);
    if (running) {
      // While a line runs, Ctrl-C stops it (and drops what was typed ahead); the rest waits.
      if (data === '\x03') {
        typeahead = '';
        running.abort();
      } else typeahead += data;
      return;
    }
    // Pasted lines run one after the other, each with its output, as if typed.
    const newline = data.length > 1 && !data.startsWith('\x1b') ? data.search(/\r\n?|\n/) : -1;
    if (newline >= 0) {
      const rest = data.slice(newline).replace(/^(\r\n?|\n)/, '');
      typeahead = rest + typeahead;
      if (data.slice(0, newline)) handle(data.slice(0, newline));
      handle('\r');
      return;
    }
    const { output, actions } = editor.feed(data);
    if (output) term.write(output);
    for (const action of actions) {
      if (action.type === 'submit') {
        void runLine(action.line).then(() => {
          const next = typeahead;
          typeahead = '';
          if (next) handle(next);
        });
        return;
      }
      if (action.type === 'interrupt') prompt();
      else if (action.type === 'clear') {
        term.clear();
        term.write(editor.render());
      } else if (action.type === 'complete') void tabComplete(action.cursor);
      else if (action.type === 'eof') term.write(`${editor.leave()}(Close the session with its ✕ button.)\r\n${editor.render()}`);
    }
  };
  term.onData(handle);
  // Tab completes here, so Esc then Tab (or Shift+Tab) moves focus on, as in the code editor:
  // the terminal is no keyboard trap.
  let leaving = false;
  // Copy with Ctrl-Shift-C (or Ctrl-C while text is selected), paste with Ctrl-Shift-V.
  term.attachCustomKeyEventHandler((e) => {
    if (e.type !== 'keydown') return true;
    if (e.key === 'Tab' && leaving) {
      leaving = false;
      return false;
    }
    if (!['Shift', 'Control', 'Alt', 'Meta'].includes(e.key)) leaving = e.key === 'Escape';
    // Alt+digit/letter are the app's panel shortcuts (Alt+B and Alt+F move by word here).
    if (e.altKey && !e.ctrlKey && !e.metaKey && /^(Digit|Key)/.test(e.code) && e.code !== 'KeyB' && e.code !== 'KeyF') return false;
    const key = e.key.toLowerCase();
    if ((e.ctrlKey || e.metaKey) && key === 'c' && (e.shiftKey || e.metaKey || term.hasSelection())) {
      if (term.hasSelection()) void navigator.clipboard?.writeText(term.getSelection()).catch(() => {});
      return false;
    }
    if ((e.ctrlKey && e.shiftKey && key === 'v') || (e.metaKey && key === 'v')) {
      void navigator.clipboard
        ?.readText()
        .then((text) => term.paste(text))
        .catch(() => {});
      return false;
    }
    return true;
  });
  const onTheme = () => {
    term.options.theme = themeFromTokens();
  };
  dark.addEventListener('change', onTheme);
  const onMotion = () => {
    term.options.cursorBlink = !reducedMotion.matches;
  };
  reducedMotion.addEventListener('change', onMotion);
  const resize = new ResizeObserver(() => {
    if (opened && element.offsetParent) fit.fit();
  });
  // The line editor wraps a long line as the terminal does, so a redraw goes back to its first row.
  term.onResize(({ cols, rows }) => {
    editor.columns = cols;
    remote?.resize(cols, rows).catch(quietly);
  });
  resize.observe(element);

  return {
    session,
    element,
    term,
    open() {
      if (opened) return;
      opened = true;
      term.open(element);
      fit.fit();
      editor.columns = term.cols;
      term.write(
        `Clawser shell — bash over this workspace's files. Type \x1b[1mhelp\x1b[0m for the commands, \x1b[1mclawser help\x1b[0m for the ` +
          `app's.\r\n`,
      );
      prompt();
    },
    focus() {
      term.focus();
    },
    /** @param {boolean} on */
    setScreenReader(on) {
      term.options.screenReaderMode = on;
    },
    dispose() {
      running?.abort();
      remote?.close();
      resize.disconnect();
      dark.removeEventListener('change', onTheme);
      reducedMotion.removeEventListener('change', onMotion);
      term.dispose();
    },
  };
}

/**
 * The Terminal panel: one or more shell sessions over the workspace, each a real terminal
 * emulator (xterm.js), with history (Up/Down, Ctrl-R), tab completion, Ctrl-C, Ctrl-L,
 * copy/paste, resizing, the app's light and dark themes and a screen-reader mode.
 * @param {TerminalPanelProps} props
 */
export function TerminalPanel(props) {
  ensureTerminalStyles();
  const dark = window.matchMedia('(prefers-color-scheme: dark)');
  const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
  if (!props.sessions.length) props.newSession();
  /** @type {ReturnType<typeof SessionView>[]} */
  const views = props.sessions.map((s) => SessionView(s, props, dark, reducedMotion));
  let active = views[0];
  const tabs = h('div', { class: 'terminal-tabs', role: 'toolbar', 'aria-label': 'Terminal sessions' });
  const screen = h('div', { class: 'terminal-screen' });

  const drawTabs = () => {
    tabs.replaceChildren(
      ...views.map((v, i) =>
        h(
          'span',
          { class: 'terminal-tab' },
          h(
            'button',
            { type: 'button', class: v === active ? '' : 'secondary', 'aria-pressed': String(v === active), on: { click: () => show(v) } },
            `Session ${i + 1}`,
          ),
          views.length > 1
            ? h(
                'button',
                { type: 'button', class: 'secondary icon-only', 'aria-label': `Close session ${i + 1}`, on: { click: () => close(v) } },
                icon('x'),
              )
            : null,
        ),
      ),
      h('button', { type: 'button', class: 'secondary', on: { click: add } }, '+ New session'),
    );
  };
  /** @param {ReturnType<typeof SessionView>} view */
  const show = (view) => {
    active = view;
    screen.replaceChildren(view.element);
    view.open();
    drawTabs();
    requestAnimationFrame(() => view.focus());
  };
  const add = () => {
    const view = SessionView(props.newSession(), props, dark, reducedMotion);
    views.push(view);
    show(view);
  };
  /** @param {ReturnType<typeof SessionView>} view */
  const close = (view) => {
    view.dispose();
    props.closeSession(view.session.id);
    views.splice(views.indexOf(view), 1);
    show(views[0]);
  };
  const sr = h('input', { id: 'terminal-sr', type: 'checkbox', checked: props.preferences.screenReader });
  sr.addEventListener('change', () => {
    const on = /** @type {HTMLInputElement} */ (sr).checked;
    for (const v of views) v.setScreenReader(on);
    props.onPreferences({ screenReader: on });
  });
  const root = panelLayout(
    {
      name: 'terminal',
      title: 'Terminal',
      onBack: props.onBack,
      actions: [h('label', { class: 'row small', for: 'terminal-sr' }, sr, 'Screen reader mode')],
    },
    tabs,
    screen,
    h(
      'p',
      { class: 'small muted' },
      'Tab completes (Esc then Tab moves on) · ↑/↓ and Ctrl-R search history · Ctrl-C stops · Ctrl-L clears · ' +
        'Ctrl-Shift-C/V copy and paste. Clawser’s own folders (.memory, .git…) are read-only here.',
    ),
  );
  // Shown once the panel is in the document (xterm measures its container).
  requestAnimationFrame(() => show(active));
  return {
    root,
    destroy() {
      for (const v of views) v.dispose();
    },
  };
}
