/** @import { ToolDefinition, ToolContext, ToolFamily } from './types.d.ts' */
import { z } from 'zod';

/** @param {ToolContext} ctx */
function ui(ctx) {
  if (!ctx.ui) throw new Error('This tool needs the Clawser page (it is not available in headless use).');
  return ctx.ui;
}

/** @type {ToolDefinition} */
export const clipboardRead = {
  name: 'clipboard_read',
  description: "Read the text on the user's clipboard.",
  permission: 'browser',
  untrusted: 'clipboard text',
  schema: z.object({}),
  async run(_args, /** @type {ToolContext} */ ctx) {
    try {
      const text = await ui(ctx).clipboardRead();
      return { ok: true, output: text || '(the clipboard is empty)' };
    } catch (err) {
      return { ok: false, output: `The browser did not allow reading the clipboard: ${/** @type {Error} */ (err).message}` };
    }
  },
};

/** @type {ToolDefinition} */
export const clipboardWrite = {
  name: 'clipboard_write',
  description: "Put text on the user's clipboard.",
  permission: 'browser',
  schema: z.object({ text: z.string().max(1_000_000) }),
  async run({ text }, /** @type {ToolContext} */ ctx) {
    try {
      await ui(ctx).clipboardWrite(text);
      return { ok: true, output: `Copied ${text.length} characters to the clipboard.` };
    } catch (err) {
      return { ok: false, output: `The browser did not allow writing the clipboard: ${/** @type {Error} */ (err).message}` };
    }
  },
};

/** @type {ToolDefinition} */
export const navigate = {
  name: 'navigate',
  description: 'Open an http(s) URL in a new browser tab for the user.',
  permission: 'browser',
  schema: z.object({ url: z.string().max(4096) }),
  async run({ url }, /** @type {ToolContext} */ ctx) {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return { ok: false, output: 'Only http and https URLs can be opened.' };
    const opened = ui(ctx).openTab(u.href);
    return opened
      ? { ok: true, output: `Opened ${u.href} in a new tab.` }
      : { ok: false, output: 'The browser blocked the new tab (pop-up blocker).' };
  },
};

/** @type {ToolDefinition} */
export const notify = {
  name: 'notify',
  description: 'Show a system notification to the user (asks for permission the first time).',
  permission: 'browser',
  schema: z.object({ title: z.string().min(1).max(200), body: z.string().max(1000).optional() }),
  async run({ title, body = '' }, /** @type {ToolContext} */ ctx) {
    const r = await ui(ctx).notify(title, body);
    if (r === 'shown') return { ok: true, output: 'Notification shown.' };
    if (r === 'denied') return { ok: false, output: 'The user has not allowed notifications for Clawser.' };
    return { ok: false, output: 'This browser does not support notifications.' };
  },
};

/** @type {ToolDefinition} */
export const screenInfo = {
  name: 'screen_info',
  description: "Describe the user's screen and browser window: sizes, pixel ratio, colour scheme, language, online state.",
  permission: 'read',
  schema: z.object({}),
  async run(_args, /** @type {ToolContext} */ ctx) {
    return { ok: true, output: JSON.stringify(ui(ctx).screenInfo(), null, 2) };
  },
};

/** @type {ToolDefinition} */
export const screenshot = {
  name: 'screenshot',
  description:
    "Take a screenshot of Clawser's own view (not other tabs or apps). Saved as a PNG " +
    'file in the workspace; vision-capable models also see it.',
  permission: 'browser',
  schema: z.object({ path: z.string().max(1024).optional().describe('Where to save the PNG (default screenshots/<time>.png)') }),
  async run({ path }, /** @type {ToolContext} */ ctx) {
    const shot = await ui(ctx).screenshot();
    const file = path ?? `screenshots/${new Date().toISOString().replace(/[:.]/g, '-')}.png`;
    const b64 = shot.dataUrl.split(',')[1] ?? '';
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    await ctx.fs.write(file, bytes);
    return {
      ok: true,
      output: `Screenshot ${shot.width}×${shot.height} saved to "${file}".`,
      image: { mediaType: 'image/png', dataUrl: shot.dataUrl },
    };
  },
};

/** @type {ToolDefinition} */
export const askUser = {
  name: 'ask_user',
  description: 'Ask the user a question and wait for the answer. Use when a decision or missing information is needed.',
  permission: 'internal',
  schema: z.object({ question: z.string().min(1).max(2000), choices: z.array(z.string().max(200)).max(10).optional() }),
  async run({ question, choices }, /** @type {ToolContext} */ ctx) {
    const answer = await ui(ctx).askUser(question, { choices });
    return answer === null ? { ok: false, output: 'The user dismissed the question without answering.' } : { ok: true, output: answer };
  },
};

/** @type {ToolDefinition} */
export const domQuery = {
  name: 'dom_query',
  description:
    "Query the agent's artifact pane (a sandboxed page the agent writes HTML into) " +
    "with a CSS selector. It never touches Clawser's own interface.",
  permission: 'read',
  schema: z.object({ selector: z.string().min(1).max(500) }),
  async run({ selector }, /** @type {ToolContext} */ ctx) {
    const r = await ui(ctx).artifact.query(selector);
    return { ok: true, output: r.count === 0 ? `No elements match "${selector}".` : JSON.stringify(r, null, 2) };
  },
};

/** @type {ToolDefinition} */
export const domModify = {
  name: 'dom_modify',
  description:
    'Change the agent\'s artifact pane: replace its whole HTML (selector "document" with action set_html), or set text/HTML, ' +
    'append HTML, remove, or set an attribute on elements matching a CSS selector. HTML is sanitized; scripts never run.',
  permission: 'internal',
  schema: z.object({
    selector: z.string().min(1).max(500),
    action: z.enum(['set_text', 'set_html', 'append_html', 'remove', 'set_attribute']),
    value: z.string().max(2_000_000).optional(),
    attribute: z.string().max(100).optional(),
  }),
  async run({ selector, action, value, attribute }, /** @type {ToolContext} */ ctx) {
    const pane = ui(ctx).artifact;
    if (selector === 'document' && action === 'set_html') {
      await pane.setHtml(value ?? '');
      return { ok: true, output: 'The artifact pane now shows the new content.' };
    }
    const n = await pane.modify(selector, action, value, attribute);
    return n === 0
      ? { ok: false, output: `No elements match "${selector}".` }
      : { ok: true, output: `Changed ${n} element${n === 1 ? '' : 's'}.` };
  },
};

export const BROWSER_TOOLS = [clipboardRead, clipboardWrite, navigate, notify, screenInfo, screenshot, askUser, domQuery, domModify];

/** @type {ToolFamily} */
export const family = { id: 'browser', tools: BROWSER_TOOLS };
