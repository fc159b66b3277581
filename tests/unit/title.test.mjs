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
