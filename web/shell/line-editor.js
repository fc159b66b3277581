/**
 * The terminal's line editing as a pure state machine (no DOM, no terminal): the panel feeds it
 * the keys xterm reports and writes the escape sequences it returns. Readline's everyday keys:
 * arrows, Home/End, Backspace/Delete, Ctrl-A/E/U/K/W, history with Up/Down, reverse search
 * with Ctrl-R, Tab (the panel completes), Ctrl-C, Ctrl-L, multi-line input (a line that is not
 * finished continues on a "> " prompt) and pasted text.
 */

/**
 * What a key press asks the panel to do besides redrawing.
 * @typedef {{type: 'submit', line: string} | {type: 'complete', line: string, cursor: number} | {type: 'interrupt'} | {type: 'clear'}
 *   | {type: 'eof'}} EditorAction
 */

const CSI = '\x1b[';

/** Characters (code points) of a string, so the cursor never splits a surrogate pair. @param {string} s */
const chars = (s) => Array.from(s);

/** What a prompt shows: its colour and style sequences take no cells. @param {string} s */
const visible = (s) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

/** East Asian wide characters and emoji: two cells of a terminal. */
const WIDE = new RegExp(
  '[\\u1100-\\u115f\\u2e80-\\u303e\\u3041-\\ua4cf\\uac00-\\ud7a3\\uf900-\\ufaff\\ufe30-\\ufe4f\\uff00-\\uff60\\uffe0-\\uffe6' +
    '\\u{1f300}-\\u{1f64f}\\u{1f900}-\\u{1faff}\\u{20000}-\\u{3fffd}]',
  'u',
);
/** The cells a character takes: 2 when wide, 0 for a combining mark or a zero-width one, else 1. @param {string} c */
const cells = (c) => (WIDE.test(c) ? 2 : /^[\p{Mn}\p{Me}\u200b-\u200f]$/u.test(c) ? 0 : 1);

/**
 * Where each character of a row starts, and where the text ends, on a terminal `columns` wide that wraps
 * at the edge (a wide character that does not fit on a row's end starts the next row).
 * @param {string[]} text @param {number} columns
 * @returns {{starts: {row: number, col: number}[], end: {row: number, col: number}}} end: a column of `columns` is the
 *   "wrap pending" place after a full row (the terminal's cursor stays on that row until the next character)
 */
function layout(text, columns) {
  let row = 0;
  let col = 0;
  const starts = [];
  for (const c of text) {
    const w = cells(c);
    if (col + w > columns) {
      row++;
      col = 0;
    }
    starts.push({ row, col });
    col += w;
  }
  return { starts, end: { row, col } };
}

export class LineEditor {
  /** @param {{prompt?: string, history?: string[]}} [options] */
  constructor(options = {}) {
    this.prompt = options.prompt ?? '$ ';
    /** @type {string[]} oldest first */
    this.history = options.history ?? [];
    /** @type {string[]} */
    this.buffer = [];
    this.cursor = 0;
    /** Lines typed so far of an unfinished command (a quote or `do` left open). @type {string[]} */
    this.pending = [];
    /** index into history while browsing, history.length when on the new line */
    this.historyIndex = this.history.length;
    /** the line being typed before browsing history */
    this.draft = '';
    /** @type {{query: string, match: number} | null} reverse search state */
    this.search = null;
    /**
     * The terminal's width in cells: a line longer than a row wraps, and a redraw goes back up to its first row
     * (the panel keeps it in step with the terminal). Infinity: never wraps.
     */
    this.columns = Infinity;
    /** Where the terminal's cursor is on the drawn line: its row counted from the prompt's (0), and its column. */
    this.drawnRow = 0;
    this.drawnCol = 0;
  }

  get line() {
    return this.buffer.join('');
  }

  /** The prompt for the current row: "> " when continuing an unfinished command. */
  get currentPrompt() {
    if (this.search) return `(reverse-i-search)'${this.search.query}': `;
    return this.pending.length ? '> ' : this.prompt;
  }

  /**
   * The line redrawn: back up to its first row (a long line wraps onto several), everything from there cleared,
   * the prompt and the text written again, the cursor placed. Going back only to the start of the cursor's row
   * left a wrapped line's first rows on screen, so each key press printed the line again.
   */
  render() {
    const shown = this.search ? (this.search.match >= 0 ? this.history[this.search.match] : '') : this.line;
    const prompt = chars(visible(this.currentPrompt));
    const { starts, end } = this.#layout(shown);
    const at = prompt.length + (this.search ? chars(shown).length : this.cursor);
    let out = `${this.drawnRow > 0 ? `${CSI}${this.drawnRow}A` : ''}\r${CSI}J${this.currentPrompt}${shown}`;
    // A line that ends at the right edge: the cursor goes on to the next row's start, where the next character goes.
    if (end.wrapped) out += '\r\n';
    const target = at < starts.length ? starts[at] : end;
    if (target.row !== end.row || target.col !== end.col) {
      out += `${end.row > target.row ? `${CSI}${end.row - target.row}A` : ''}\r${target.col ? `${CSI}${target.col}C` : ''}`;
    }
    this.drawnRow = target.row;
    this.drawnCol = target.col;
    return out;
  }

  /**
   * Takes the cursor past the drawn line's end onto a new row and forgets the line (what is written next, output
   * or a prompt, starts there): what Enter, Ctrl-C and a list of completions write first.
   * @param {string} [before] written at the line's end first (^C)
   */
  leave(before = '') {
    const { end } = this.#layout(this.search ? '' : this.line);
    let out = '';
    if (end.row !== this.drawnRow || end.col !== this.drawnCol) {
      const down = end.row - this.drawnRow;
      out += `${down > 0 ? `${CSI}${down}B` : ''}\r${end.col ? `${CSI}${end.col}C` : ''}`;
    }
    this.drawnRow = 0;
    this.drawnCol = 0;
    // At the start of a row the line's end wrapped onto: already on a new row.
    return end.wrapped && !before ? out : `${out}${before}\r\n`;
  }

  /**
   * Where each character of the prompt and `text` starts, and where the line ends, on this terminal.
   * @param {string} text
   */
  #layout(text) {
    const { starts, end } = layout([...chars(visible(this.currentPrompt)), ...chars(text)], this.columns);
    const wrapped = end.col >= this.columns;
    return { starts, end: wrapped ? { row: end.row + 1, col: 0, wrapped } : { ...end, wrapped } };
  }

  /** @param {string} text */
  setLine(text) {
    this.buffer = chars(text);
    this.cursor = this.buffer.length;
  }

  /** Starts a fresh prompt (after a command ran or Ctrl-C). */
  reset() {
    this.buffer = [];
    this.cursor = 0;
    this.drawnRow = 0;
    this.drawnCol = 0;
    this.pending = [];
    this.search = null;
    this.historyIndex = this.history.length;
    this.draft = '';
  }

  /** Adds a finished command to the history (not a repeat of the last one, not blank). @param {string} line */
  remember(line) {
    if (line.trim() && this.history[this.history.length - 1] !== line) this.history.push(line);
    this.historyIndex = this.history.length;
  }

  /**
   * Marks the typed line as the start of an unfinished command: the next row continues it.
   * @param {string} line
   */
  continueWith(line) {
    this.pending.push(line);
    this.buffer = [];
    this.cursor = 0;
  }

  /** The whole command: the unfinished lines and the current one. */
  get command() {
    return [...this.pending, this.line].join('\n');
  }

  /** @param {string} text */
  insert(text) {
    const c = chars(text);
    this.buffer.splice(this.cursor, 0, ...c);
    this.cursor += c.length;
  }

  /**
   * Feeds what xterm's onData reported (one key, or pasted text).
   * @param {string} data
   * @returns {{output: string, actions: EditorAction[]}} output: what to write to the terminal
   */
  feed(data) {
    /** @type {EditorAction[]} */
    const actions = [];
    let output = '';
    // Pasted text: printable runs are inserted; newlines submit, like typing them.
    if (data.length > 1 && !data.startsWith('\x1b')) {
      const parts = data.replace(/\r\n?/g, '\n').split('\n');
      parts.forEach((part, i) => {
        this.insert(part.replace(/\x1b(\[[0-9;?]*[A-Za-z~]|O.|.)?/g, '').replace(/[\x00-\x08\x0b-\x1f\x7f]/g, ''));
        if (i < parts.length - 1) {
          output += this.render() + this.leave();
          actions.push({ type: 'submit', line: this.command });
          this.remember(this.command);
          this.pending = [];
          this.buffer = [];
          this.cursor = 0;
        }
      });
      return { output: output + this.render(), actions };
    }
    if (this.search) return this.#searchKey(data);
    switch (data) {
      case '\r':
      case '\n':
        return { output: this.leave(), actions: [{ type: 'submit', line: this.command }] };
      case '\x7f':
      case '\b':
        if (this.cursor > 0) {
          this.buffer.splice(this.cursor - 1, 1);
          this.cursor--;
        }
        break;
      case `${CSI}3~`:
        this.buffer.splice(this.cursor, 1);
        break;
      case `${CSI}D`:
      case '\x02':
        this.cursor = Math.max(0, this.cursor - 1);
        break;
      case `${CSI}C`:
      case '\x06':
        this.cursor = Math.min(this.buffer.length, this.cursor + 1);
        break;
      case `${CSI}H`:
      case '\x1bOH':
      case `${CSI}1~`:
      case '\x01':
        this.cursor = 0;
        break;
      case `${CSI}F`:
      case '\x1bOF':
      case `${CSI}4~`:
      case '\x05':
        this.cursor = this.buffer.length;
        break;
      case `${CSI}1;5D`:
      case '\x1bb':
        this.cursor = this.#wordStart();
        break;
      case `${CSI}1;5C`:
      case '\x1bf':
        this.cursor = this.#wordEnd();
        break;
      case '\x15': // Ctrl-U: delete to the start
        this.buffer.splice(0, this.cursor);
        this.cursor = 0;
        break;
      case '\x0b': // Ctrl-K: delete to the end
        this.buffer.splice(this.cursor);
        break;
      case '\x17': {
        // Ctrl-W: delete the word before the cursor
        const start = this.#wordStart();
        this.buffer.splice(start, this.cursor - start);
        this.cursor = start;
        break;
      }
      case `${CSI}A`:
      case '\x10':
        this.#browse(-1);
        break;
      case `${CSI}B`:
      case '\x0e':
        this.#browse(1);
        break;
      case '\t':
        return { output: '', actions: [{ type: 'complete', line: this.line, cursor: this.cursor }] };
      case '\x03':
        return { output: this.leave('^C'), actions: [{ type: 'interrupt' }] };
      case '\x0c':
        return { output: '', actions: [{ type: 'clear' }] };
      case '\x04':
        if (!this.buffer.length) return { output: '', actions: [{ type: 'eof' }] };
        this.buffer.splice(this.cursor, 1);
        break;
      case '\x12':
        this.search = { query: '', match: -1 };
        break;
      default:
        if (data.startsWith('\x1b') || /[\x00-\x1f]/.test(data)) return { output: '', actions };
        this.insert(data);
    }
    return { output: this.render(), actions };
  }

  /** @param {number} step */
  #browse(step) {
    if (!this.history.length) return;
    if (this.historyIndex === this.history.length) this.draft = this.line;
    this.historyIndex = Math.min(this.history.length, Math.max(0, this.historyIndex + step));
    this.setLine(this.historyIndex === this.history.length ? this.draft : this.history[this.historyIndex]);
  }

  #wordStart() {
    let i = this.cursor;
    while (i > 0 && /\s/.test(this.buffer[i - 1])) i--;
    while (i > 0 && !/\s/.test(this.buffer[i - 1])) i--;
    return i;
  }

  #wordEnd() {
    let i = this.cursor;
    while (i < this.buffer.length && /\s/.test(this.buffer[i])) i++;
    while (i < this.buffer.length && !/\s/.test(this.buffer[i])) i++;
    return i;
  }

  /**
   * Reverse search (Ctrl-R): typing narrows to the newest history line containing the query,
   * Ctrl-R again goes further back, Enter runs it, Esc or an arrow keeps it for editing,
   * Ctrl-C or Ctrl-G gives up.
   * @param {string} data
   * @returns {{output: string, actions: EditorAction[]}}
   */
  #searchKey(data) {
    const s = /** @type {{query: string, match: number}} */ (this.search);
    /** @param {number} from */
    const find = (from) => {
      for (let i = Math.min(from, this.history.length - 1); i >= 0; i--) if (s.query && this.history[i].includes(s.query)) return i;
      return -1;
    };
    const accept = () => {
      const found = s.match >= 0 ? this.history[s.match] : this.line;
      this.search = null;
      this.setLine(found);
    };
    if (data === '\x12') {
      const next = find(s.match - 1);
      if (next >= 0) s.match = next;
    } else if (data === '\x7f' || data === '\b') {
      s.query = chars(s.query).slice(0, -1).join('');
      s.match = find(this.history.length - 1);
    } else if (data === '\x03' || data === '\x07') {
      this.search = null;
    } else if (data === '\r' || data === '\n') {
      accept();
      return { output: this.render() + this.leave(), actions: [{ type: 'submit', line: this.command }] };
    } else if (data.startsWith('\x1b')) {
      accept();
    } else if (!/[\x00-\x1f]/.test(data)) {
      s.query += data;
      s.match = find(s.match >= 0 ? s.match : this.history.length - 1);
    }
    return { output: this.render(), actions: [] };
  }
}
