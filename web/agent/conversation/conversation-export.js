/**
 * A conversation as a file: Markdown (to read or share), JSONL (the event log, to import
 * again) and a self-contained HTML page; and the validation of a JSONL file being imported.
 * Pure logic: the caller reads and writes the files.
 */
/** @import { ClawserEvent, ConversationMeta } from '../types.d.ts' */
import { isEvent } from './event-log.js';

/** An import larger than this is refused before parsing (a conversation log, not a dump). */
export const MAX_IMPORT_BYTES = 50 * 1024 * 1024;
const SOURCES = new Set(['user', 'agent', 'system', 'tool', 'provider']);

/** @param {ClawserEvent[]} events */
export function toJsonl(events) {
  return events.map((e) => JSON.stringify(e)).join('\n') + (events.length ? '\n' : '');
}

/** @param {number} ts */
const when = (ts) => new Date(ts).toISOString().replace('T', ' ').slice(0, 16);

/**
 * The readable turns of a conversation: messages, tool calls with their results, errors.
 * @param {ClawserEvent[]} events
 * @returns {{who: string, at: number, text: string, kind: 'user' | 'assistant' | 'tool' | 'error'}[]}
 */
function turns(events) {
  /** @type {{who: string, at: number, text: string, kind: 'user' | 'assistant' | 'tool' | 'error'}[]} */
  const out = [];
  for (const e of events) {
    if (e.type === 'user_message') out.push({ who: 'You', at: e.timestamp, text: String(e.data.text ?? ''), kind: 'user' });
    else if (e.type === 'agent_message' && e.data.text)
      out.push({ who: String(e.data.model ?? 'Assistant'), at: e.timestamp, text: String(e.data.text), kind: 'assistant' });
    else if (e.type === 'tool_call')
      out.push({
        who: 'Tool call',
        at: e.timestamp,
        text: `${String(e.data.name ?? 'tool')} ${JSON.stringify(e.data.arguments ?? {})}`,
        kind: 'tool',
      });
    else if (e.type === 'tool_result')
      out.push({ who: 'Tool result', at: e.timestamp, text: `${e.data.ok ? '✓' : '✗'} ${String(e.data.result ?? '')}`, kind: 'tool' });
    else if (e.type === 'provider_error' || e.type === 'stream_error' || e.type === 'error')
      out.push({ who: 'Error', at: e.timestamp, text: String(e.data.message ?? 'failed'), kind: 'error' });
  }
  return out;
}

/** The longest run of backticks in `text`, plus one: a fence that cannot close early. @param {string} text */
const fenceFor = (text) => '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));

/**
 * @param {Pick<ConversationMeta, 'title'>} meta
 * @param {ClawserEvent[]} events
 */
export function toMarkdown(meta, events) {
  const parts = [`# ${meta.title}`, ''];
  for (const t of turns(events)) {
    parts.push(`## ${t.who} · ${when(t.at)}`, '');
    if (t.kind === 'tool') {
      const fence = fenceFor(t.text);
      parts.push(fence, t.text, fence);
    } else parts.push(t.text);
    parts.push('');
  }
  return parts.join('\n');
}

/** @param {string} s */
const escapeHtml = (s) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/**
 * A self-contained page (no scripts, no outside requests): each message's HTML comes from
 * `render` — the app passes its sanitizing Markdown renderer — and everything else is escaped.
 * @param {Pick<ConversationMeta, 'title'>} meta
 * @param {ClawserEvent[]} events
 * @param {(markdown: string) => string} render sanitized HTML for a message
 */
export function toHtml(meta, events, render) {
  const body = turns(events)
    .map((t) => {
      const content =
        t.kind === 'tool'
          ? `<pre>${escapeHtml(t.text)}</pre>`
          : t.kind === 'user'
            ? `<p>${escapeHtml(t.text).replaceAll('\n', '<br>')}</p>`
            : render(t.text);
      return (
        `<article class="${t.kind}"><header>${escapeHtml(t.who)} · <time>${escapeHtml(when(t.at))}</time></header>${content}</` + `article>`
      );
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(meta.title)}</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 50rem; margin: 2rem auto; padding: 0 1rem; color: #1f2328; background: #fff; }
@media (prefers-color-scheme: dark) { body { color: #e6edf3; background: #0d1117; } article { border-color: #30363d; } }
article { border: 1px solid #d0d7de; border-radius: 8px; padding: .75rem 1rem; margin: .75rem 0; }
article.user { background: color-mix(in srgb, #0969da 8%, transparent); }
article.error { border-color: #cf222e; }
header { font-size: .85rem; opacity: .7; margin-bottom: .25rem; }
pre { overflow: auto; white-space: pre-wrap; }
</style></head>
<body><h1>${escapeHtml(meta.title)}</h1>
${body}
</body></html>
`;
}

/**
 * Reads a JSONL event log being imported. Every line must be a well-formed event; a file with
 * any bad line is refused whole (nothing half-imported), naming the first bad line.
 * @param {string} text
 * @returns {{ok: true, events: ClawserEvent[]} | {ok: false, error: string}}
 */
export function parseImport(text) {
  if (text.length > MAX_IMPORT_BYTES) return { ok: false, error: `The file is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MB.` };
  /** @type {ClawserEvent[]} */
  const events = [];
  const ids = new Set();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    let value;
    try {
      value = JSON.parse(line);
    } catch {
      return { ok: false, error: `Line ${i + 1} is not JSON. A conversation file has one event (JSON) per line, as exported by Clawser.` };
    }
    if (!isEvent(value) || !SOURCES.has(value.source))
      return { ok: false, error: `Line ${i + 1} is not a Clawser event (it needs an id, a known type, a timestamp, a source and data).` };
    if (ids.has(value.id)) return { ok: false, error: `Line ${i + 1} repeats the event id "${value.id}".` };
    ids.add(value.id);
    events.push(value);
  }
  if (!events.length) return { ok: false, error: 'The file holds no events.' };
  return { ok: true, events };
}

/**
 * Marks the messages of an imported conversation as content from outside: while they are in
 * the model's context, the conversation is tainted (standing-state calls ask the user), as
 * with a fetched web page — a file is not the user's own words.
 * @param {ClawserEvent[]} events @param {string} fileName
 * @returns {ClawserEvent[]}
 */
export function markImported(events, fileName) {
  const what = `an imported conversation file (${fileName.slice(0, 80)})`;
  /** @template {{data: {untrusted?: string}}} E @param {E} e @returns {E} */
  const tainted = (e) => ({
    ...e,
    data: { ...e.data, untrusted: typeof e.data.untrusted === 'string' && e.data.untrusted ? e.data.untrusted : what },
  });
  return events.map((e) => (e.type === 'user_message' || e.type === 'agent_message' || e.type === 'tool_result' ? tainted(e) : e));
}
