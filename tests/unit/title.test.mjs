// A conversation's provisional title is its first message as plain text (issue 13).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plainTitle } from '../../web/agent/conversation/title.js';

test('Markdown is stripped: emphasis, code, links, images, headings, lists, quotes, fences, HTML', () => {
  assert.equal(plainTitle('**Fix** the `parse()` bug in _lexer.js_'), 'Fix the parse() bug in lexer.js');
  assert.equal(plainTitle('# Plan\n- read [the docs](https://x.example)\n- check ![chart](c.png)'), 'Plan read the docs check chart');
  assert.equal(plainTitle('> quoted question?'), 'quoted question?');
  assert.equal(plainTitle('```js\nconsole.log(1)\n```'), 'console.log(1)');
  assert.equal(plainTitle('<b>bold</b> and ~~gone~~ text'), 'bold and gone text');
  assert.equal(plainTitle('1. first\n2. second'), 'first second');
});

test('control: plain text stays as written; snake_case and 2*3*4 are not emphasis', () => {
  assert.equal(plainTitle('Hello Clawser'), 'Hello Clawser');
  assert.equal(plainTitle('rename my_var_name please'), 'rename my_var_name please');
  assert.equal(plainTitle('what is 2*3*4'), 'what is 2*3*4');
});

test('long messages are cut at 60 characters with an ellipsis; empty Markdown gives an empty title', () => {
  const t = plainTitle('word '.repeat(40));
  assert.ok(t.length <= 60 && t.endsWith('…'), t);
  assert.equal(plainTitle('```\n```'), '');
});

test('a model title: its first line, without "Title:", quotes or Markdown; empty when nothing is left', async () => {
  const { cleanModelTitle, titleRequest, TITLE_PROMPT } = await import('../../web/agent/conversation/title.js');
  assert.equal(cleanModelTitle('"Garden party planning"'), 'Garden party planning');
  assert.equal(cleanModelTitle('Title: **Nginx reload**\nMore text'), 'Nginx reload');
  assert.equal(cleanModelTitle('\n\n  «Les marées»  '), 'Les marées');
  assert.equal(cleanModelTitle('   '), '');
  assert.ok(cleanModelTitle('word '.repeat(40)).length <= 60);
  const r = titleRequest('x'.repeat(5000), 'reply');
  assert.equal(r.system, TITLE_PROMPT);
  assert.ok(r.messages[0].content.length < 3300);
});

test('a model run by this computer in the page is not asked for a title (the first words stay), nor is a chain it leads; \
control: a cloud provider, or a chain led by one, is asked', async () => {
  const { Titles } = await import('../../web/app/chat/titles.js');
  const { CATALOG } = await import('../../web/providers/catalog.js');
  // Found by what it declares, not by name: the provider that takes no background work.
  const inPage = CATALOG.find((e) => !e.capabilities.background)?.id;
  const cloud = CATALOG.find((e) => e.capabilities.background && e.capabilities.runs === 'http')?.id;
  assert.ok(inPage && cloud);
  /** Asks for a title after a first exchange with `provider`; resolves with the title set (or null once nothing more can happen). */
  const titleWith = async (/** @type {any} */ provider) => {
    /** @type {string[]} */
    const asked = [];
    const ask = (/** @type {string} */ id) => ({
      id,
      model: 'm',
      chat: async () => {
        asked.push(id);
        return { content: 'Fixing the parser', usage: { inputTokens: 1, outputTokens: 1 } };
      },
    });
    const made = provider.chain
      ? { id: provider.chain[0], chain: provider.chain.map(ask), chat: ask(provider.chain[0]).chat }
      : ask(provider);
    /** @type {(title: string) => void} */
    let titled = () => {};
    const done = new Promise((resolve) => (titled = resolve));
    const conv = {
      id: 'c1',
      meta: { title: 'Fix the parser', titleSet: false, titleGenerated: false },
      events: [
        { type: 'user_message', data: { text: 'Fix the parser' } },
        { type: 'agent_message', data: { text: 'Done: the lexer skipped empty lines.' } },
      ],
      setGeneratedTitle: async (/** @type {string} */ t) => titled(t),
    };
    const core = { state: { conversations: [conv] }, set() {}, withMeta: () => [], announceList() {} };
    // fakes of the two parts Titles uses
    new Titles(/** @type {any} */ (core), { redact: (t) => t }).afterFirstExchange(/** @type {any} */ (conv), /** @type {any} */ (made));
    const title = asked.length ? await done : null;
    return { asked, title };
  };
  assert.deepEqual(await titleWith(inPage), { asked: [], title: null });
  assert.deepEqual(await titleWith({ chain: [inPage, cloud] }), { asked: [], title: null });
  // Controls.
  assert.deepEqual(await titleWith(cloud), { asked: [cloud], title: 'Fixing the parser' });
  assert.deepEqual(await titleWith({ chain: [cloud, inPage] }), { asked: [cloud], title: 'Fixing the parser' });
});
