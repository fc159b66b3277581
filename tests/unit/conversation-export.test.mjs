// A conversation as Markdown, JSONL and HTML, and the validation of an imported JSONL (issue 13).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toJsonl, toMarkdown, toHtml, parseImport, markImported } from '../../web/agent/conversation-export.js';
import { applyEventToHistory } from '../../web/agent/event-log.js';

/** @param {string} id @param {string} type @param {Record<string, unknown>} data @param {string} source */
const ev = (id, type, data, source) => /** @type {any} */ ({ id, type, timestamp: Date.UTC(2026, 10, 25, 9, Number(id.slice(1))), source, data }); // test events
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
  assert.deepEqual(imported.map((m) => m.untrusted), imported.map(() => 'an imported conversation file (chat.jsonl)'));
});
