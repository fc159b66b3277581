// A conversation as Markdown, JSONL and HTML, and the validation of an imported JSONL (issue 13).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toJsonl, toMarkdown, toHtml, parseImport, markImported } from '../../web/agent/conversation/conversation-export.js';
import { applyEventToHistory } from '../../web/agent/conversation/event-log.js';
import { BranchTree, activePath } from '../../web/agent/conversation/branches.js';

/** @param {string} id @param {string} type @param {Record<string, unknown>} data @param {string} source */
const ev = (id, type, data, source) =>
  /** @type {any} */ ({ id, type, timestamp: Date.UTC(2026, 10, 25, 9, Number(id.slice(1))), source, data }); // test events
const events = [
  ev('e1', 'user_message', { text: 'Show me `code`' }, 'user'),
  ev('e2', 'tool_call', { id: 't1', name: 'fs_read', arguments: { path: 'a.md' } }, 'agent'),
  ev('e3', 'tool_result', { toolCallId: 't1', name: 'fs_read', ok: true, result: 'has ``` fences' }, 'tool'),
  ev('e4', 'agent_message', { text: 'Here: <script>alert(1)</script> **done**', model: 'm1' }, 'agent'),
];

test('JSONL round-trips through the import check unchanged', () => {
  const r = parseImport(toJsonl(events));
  assert.ok(r.ok);
  assert.deepEqual(r.ok && r.events, events);
});

test('Markdown: a heading per turn; a tool result with backticks gets a longer fence', () => {
  const md = toMarkdown({ title: 'Chat' }, events);
  assert.match(md, /^# Chat\n/);
  assert.match(md, /## You · 2026-11-25 09:01\n\nShow me `code`/);
  assert.match(md, /````\n✓ has ``` fences\n````/);
  assert.match(md, /## m1 · .*\n\nHere: <script>/);
});

test('HTML: self-contained, scripts and requests refused by its own CSP, text escaped, messages through the given renderer', () => {
  const html = toHtml({ title: 'A <b>title</b>' }, events, (m) => `<div class="rendered">${m.length}</div>`);
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'/);
  assert.match(html, /<title>A &lt;b&gt;title&lt;\/b&gt;<\/title>/);
  assert.match(html, /<p>Show me `code`<\/p>/);
  assert.match(html, /<div class="rendered">\d+<\/div>/, 'assistant text goes through the renderer');
  assert.doesNotMatch(html, /<script>/);
});

test('a bad file is refused whole, naming the line; control: a good one is accepted', () => {
  const good = toJsonl(events);
  assert.ok(parseImport(good).ok);
  const cases = [
    [`${good}not json\n`, /Line 5 is not JSON/],
    [`${good}{"id":"x","type":"made_up","timestamp":1,"source":"user","data":{}}\n`, /Line 5 is not a Clawser event/],
    [`${good}${JSON.stringify({ ...events[0], source: 'attacker' })}\n`, /Line 5 is not a Clawser event/],
    [`${good}${JSON.stringify(events[0])}\n`, /repeats the event id "e1"/],
    ['\n\n', /no events/],
  ];
  for (const [text, error] of cases) {
    const r = parseImport(/** @type {string} */ (text));
    assert.ok(!r.ok && /** @type {RegExp} */ (error).test(r.error), `${String(error)}: ${JSON.stringify(r)}`);
  }
});

test('imported messages count as content from outside: in the context, they taint the conversation', () => {
  /** @param {any[]} evs */
  const history = (evs) => {
    /** @type {import('../../web/providers/types.d.ts').Message[]} */
    const h = [];
    for (const e of evs) applyEventToHistory(h, e);
    return h;
  };
  // Control: the same events as the user's own carry no taint.
  assert.ok(history(events).every((m) => !m.untrusted));
  const imported = history(markImported(events, 'chat.jsonl'));
  assert.deepEqual(
    imported.map((m) => m.untrusted),
    imported.map(() => 'an imported conversation file (chat.jsonl)'),
  );
});

test('branches: the JSONL keeps every version and the version shown; Markdown and HTML show the version shown only', () => {
  // An edited message: e1 asked, e2 answered; a branch back to the start, e4/e5 the edit and its answer;
  // then a switch back to the first version (a branch to e2).
  const branched = [
    ev('e1', 'user_message', { text: 'What is two plus two?' }, 'user'),
    ev('e2', 'agent_message', { text: 'Four.', model: 'm1' }, 'agent'),
    ev('e3', 'branch', { head: null }, 'user'),
    ev('e4', 'user_message', { text: 'What is three plus three?' }, 'user'),
    ev('e5', 'agent_message', { text: 'Six.', model: 'm1' }, 'agent'),
    ev('e6', 'branch', { head: 'e2' }, 'user'),
  ];
  const r = parseImport(toJsonl(branched));
  assert.ok(r.ok);
  const tree = new BranchTree(r.events);
  assert.deepEqual(
    tree.path().map((e) => e.id),
    ['e1', 'e2'],
    'the version shown when exported',
  );
  assert.deepEqual(
    [...tree.alternativesOnPath()].map(([id, v]) => [id, v.index, v.count]),
    [['e1', 0, 2]],
    '‹ 1/2 ›',
  );
  assert.deepEqual(
    tree.pathTo(tree.latestIn('e4')).map((e) => e.id),
    ['e4', 'e5'],
    'the other version, switchable',
  );
  // Control: without the last branch event the edit is the version shown.
  assert.deepEqual(
    new BranchTree(branched.slice(0, 5)).path().map((e) => e.id),
    ['e4', 'e5'],
  );

  const shown = activePath(branched);
  const md = toMarkdown({ title: 'Sums' }, shown);
  assert.match(md, /two plus two[\s\S]*Four\./);
  assert.doesNotMatch(md, /three plus three|Six\./);
  const html = toHtml({ title: 'Sums' }, shown, (m) => `<p>${m}</p>`);
  assert.match(html, /two plus two[\s\S]*Four\./);
  assert.doesNotMatch(html, /three plus three|Six\./);
});
