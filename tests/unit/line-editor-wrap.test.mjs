// The terminal's line editor on a line longer than a row (issue 37, the Terminal printed a wrapped line
// twice): what it writes, played on a small model of a terminal that wraps at its right edge, shows the
// line once while it is typed, edited across rows, run, interrupted and listed under.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LineEditor } from '../../web/shell/line-editor.js';

/**
 * A terminal screen as xterm keeps it: `columns` wide, wrapping at the edge with the cursor left on the
 * last column until the next character ("wrap pending"), a wide character (CJK) two cells that starts
 * the next row when one cell is left; the sequences the editor writes.
 * @param {number} columns
 */
function screen(columns) {
  /** @type {string[][]} */
  const rows = [[]];
  let row = 0;
  let col = 0; // columns: wrap pending
  const line = (/** @type {number} */ r) => {
    while (rows.length <= r) rows.push([]);
    return rows[r];
  };
  return {
    /** @param {string} out */
    write(out) {
      for (let i = 0; i < out.length; i++) {
        const c = out[i];
        if (c === '\x1b') {
          const m = /^\x1b\[([\d;]*)([A-Za-z])/.exec(out.slice(i));
          if (!m) throw new Error(`unknown sequence at ${JSON.stringify(out.slice(i))}`);
          i += m[0].length - 1;
          const n = Number(m[1] || 1);
          col = Math.min(col, columns - 1);
          if (m[2] === 'A') row = Math.max(0, row - n);
          else if (m[2] === 'B') row += n;
          else if (m[2] === 'C') col = Math.min(columns - 1, col + n);
          else if (m[2] === 'D') col = Math.max(0, col - n);
          else if (m[2] === 'J') {
            line(row).length = Math.min(line(row).length, col);
            rows.length = row + 1;
          } else if (m[2] !== 'm') throw new Error(`unknown sequence ${m[0]}`);
        } else if (c === '\r') col = 0;
        else if (c === '\n') {
          row++;
          line(row);
          col = Math.min(col, columns - 1);
        } else {
          const w = /[\u3000-\u9fff]/.test(c) ? 2 : 1;
          if (col + w > columns) {
            row++;
            col = 0;
          }
          const r = line(row);
          while (r.length < col) r.push(' ');
          r[col] = c;
          if (w === 2) r[col + 1] = '';
          col += w;
        }
      }
    },
    /** The screen's rows, trailing spaces dropped. */
    get text() {
      return rows.map((r) => r.join('').trimEnd());
    },
    get cursor() {
      return { row, col: Math.min(col, columns - 1), pending: col >= columns };
    },
  };
}

const PROMPT = '\x1b[1;32mclawser\x1b[0m:\x1b[1;34m/\x1b[0m$ ';

/** An editor on a screen `columns` wide, its prompt drawn. @param {number} columns */
function terminal(columns) {
  const ed = new LineEditor({ prompt: PROMPT, history: [] });
  ed.columns = columns;
  const term = screen(columns);
  term.write(ed.render());
  /** @param {string} keys one key or a pasted text */
  const press = (keys) => {
    const r = ed.feed(keys);
    term.write(r.output);
    return r.actions;
  };
  /** @param {string} text typed a key at a time */
  const type = (text) => {
    for (const c of text) press(c);
  };
  return { ed, term, press, type };
}

test('a line that wraps is shown once while typed: the rows hold the prompt and the line in order (control: an editor \
that does not know the width prints it again)', () => {
  const line = 'echo alpha bravo charlie delta echo foxtrot golf';
  const { term, type } = terminal(20);
  type(line);
  assert.deepEqual(term.text, ['clawser:/$ echo alph', 'a bravo charlie delt', 'a echo foxtrot golf']);
  assert.deepEqual(term.cursor, { row: 2, col: 19, pending: false });
  // The control: the same keys to an editor that takes the screen as one endless row.
  const blind = terminal(20);
  blind.ed.columns = Infinity;
  blind.type(line);
  assert.ok(blind.term.text.filter((r) => r.startsWith('clawser:/$ echo')).length > 1, 'control: printed again');
});

test('editing a wrapped line on an earlier row, at the edge and with a wide character keeps one copy with the cursor \
where the next key goes', () => {
  const { ed, term, press, type } = terminal(20);
  type('echo alpha bravo charlie delta');
  press('\x01'); // Ctrl-A
  assert.deepEqual(term.cursor, { row: 0, col: 11, pending: false });
  for (let i = 0; i < 5; i++) press('\x1b[C');
  type('zulu ');
  assert.deepEqual(term.text, ['clawser:/$ echo zulu', ' alpha bravo charlie', ' delta']);
  assert.deepEqual(term.cursor, { row: 1, col: 1, pending: false }, 'after "zulu "');
  assert.equal(ed.line, 'echo zulu alpha bravo charlie delta');
  // Deleting back to fewer rows clears the rows left over.
  press('\x0b'); // Ctrl-K: to the end
  assert.deepEqual(term.text, ['clawser:/$ echo zulu', '']);
  // A line ending exactly at the edge: the cursor goes to the next row, and the next key lands there.
  press('\x15'); // Ctrl-U
  type('echo 123456789012345678901234');
  assert.deepEqual(term.text, ['clawser:/$ echo 1234', '56789012345678901234', '']);
  assert.deepEqual(term.cursor, { row: 2, col: 0, pending: false });
  type('5');
  assert.deepEqual(term.text, ['clawser:/$ echo 1234', '56789012345678901234', '5']);
  // A wide character with one cell left on the row starts the next one, as on the terminal; Left moves over it.
  press('\x15');
  type('echo 123漢字');
  assert.deepEqual(term.text, ['clawser:/$ echo 123', '漢字']);
  assert.deepEqual(term.cursor, { row: 1, col: 4, pending: false });
  press('\x1b[D');
  press('\x1b[D');
  assert.deepEqual(term.cursor, { row: 1, col: 0, pending: false });
  press('\x1b[D');
  assert.deepEqual(term.cursor, { row: 0, col: 18, pending: false });
});

test("Enter, Ctrl-C and a pasted line leave from the line's end: what follows starts on a row of its own, the line \
stays whole", () => {
  const { ed, term, press, type } = terminal(20);
  type('echo alpha bravo charlie delta');
  press('\x01');
  assert.deepEqual(press('\r'), [{ type: 'submit', line: 'echo alpha bravo charlie delta' }]);
  term.write('alpha bravo charlie delta\r\n');
  ed.reset();
  term.write(ed.render());
  assert.deepEqual(term.text, ['clawser:/$ echo alph', 'a bravo charlie delt', 'a', 'alpha bravo charlie', 'delta', 'clawser:/$']);
  // Ctrl-C with the cursor on an earlier row: ^C after the line's end, the new prompt under it.
  type('echo one two three four five');
  press('\x01');
  assert.deepEqual(press('\x03'), [{ type: 'interrupt' }]);
  ed.reset();
  term.write(ed.render());
  assert.deepEqual(term.text.slice(5), ['clawser:/$ echo one', 'two three four five^', 'C', 'clawser:/$']);
  // A pasted line that ends at the edge: one new row after it, not a blank one.
  assert.deepEqual(press('echo 123456789012345678901234\r'), [{ type: 'submit', line: 'echo 123456789012345678901234' }]);
  assert.deepEqual(term.text.slice(8), ['clawser:/$ echo 1234', '56789012345678901234', 'clawser:/$']);
});
