// The Terminal panel: the workspace's shell sessions (they outlive the view) and its history.
/** @import { PanelEntry } from '../panels.js' */

/** The per-browser preference of a screen-reader-friendly terminal. */
const SCREEN_READER_KEY = 'clawser_terminal_screen_reader';

/** @type {PanelEntry} */
const panel = {
  name: 'terminal',
  label: 'Terminal',
  icon: 'square-terminal',
  shortcut: 'Alt+T',
  split: false,
  async open(ctx) {
    const [{ TerminalPanel }, { complete }, { LineEditor }, host] = await Promise.all([
      import('../../ui/terminal-panel.js'),
      import('../../shell/completion.js'),
      import('../../shell/line-editor.js'),
      ctx.services.terminal(),
    ]);
    return TerminalPanel({
      sessions: host.sessions,
      newSession: () => host.newSession(),
      closeSession: (id) => host.closeSession(id),
      history: () => host.history(),
      remember: (line) => host.remember(line),
      clearHistory: () => host.clearHistory(),
      completionSource: (shell) => host.completionSource(shell),
      complete,
      lineEditor: (options) => new LineEditor(options),
      preferences: { screenReader: ctx.preferences.get(SCREEN_READER_KEY) === true },
      onPreferences: (p) => ctx.preferences.set(SCREEN_READER_KEY, p.screenReader),
      onBack: ctx.back,
    });
  },
};
export default panel;
