// The public module loads in the browser and its pieces work together end to end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openFixture } from './fixture.mjs';

test('web/clawser.js: provider + EventLog persistence + renderMarkdown, as an embedder uses them', async () => {
  const fx = await openFixture({ llm: {}, page: 'home' });
  try {
    const { llm, page } = fx;
    llm.enqueue({ text: 'Hello from **the API**' });
    const result = await page.evaluate(async (base) => {
      const api = await import('/web/clawser.js');
      const fs = new api.OpfsFileSystem();
      const store = new api.ConversationStore(fs, 'embedder');
      const conv = await store.open((await store.create('API test')).id);
      const provider = api.createProvider({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${base}/v1` });
      const agent = new api.ClawserAgent({ provider, conversation: conv });
      let text = '';
      for await (const ev of agent.runStream('hi')) if (ev.type === 'text') text += ev.text;
      const reopened = await store.open(conv.id);
      // workspaceFs: Clawser's FileSystem that isomorphic-git (the embedder's own import) runs on.
      const wfs = api.workspaceFs('embedderws');
      await wfs.write('hello.txt', 'hi\n');
      const git = (await import('isomorphic-git')).default;
      await git.init({ fs: wfs, dir: '/', defaultBranch: 'main' });
      await git.add({ fs: wfs, dir: '/', filepath: 'hello.txt' });
      await git.commit({ fs: wfs, dir: '/', message: 'from an embedder', author: { name: 'E', email: 'e@example.com' } });
      const gitLog = (await git.log({ fs: wfs, dir: '/' })).map((c) => c.commit.message.trim());
      const viaHelper = (await new api.WorkspaceGit(wfs).log()).map((c) => c.message);
      const listed = (await wfs.list('')).map((e) => e.name).sort();
      return {
        text,
        html: api.renderMarkdown(text),
        types: reopened.events.map((e) => e.type),
        exports: Object.keys(api).sort(),
        gitLog,
        viaHelper,
        listed,
      };
    }, llm.url);
    assert.equal(result.text, 'Hello from **the API**');
    assert.equal(result.html.trim(), '<p>Hello from <strong>the API</strong></p>');
    assert.deepEqual(result.types, ['user_message', 'agent_message']);
    assert.deepEqual(result.gitLog, ['from an embedder']);
    assert.deepEqual(result.viaHelper, ['from an embedder']);
    assert.deepEqual(result.listed, ['.git', 'hello.txt']);
    for (const name of [
      'workspaceFs',
      'WorkspaceGit',
      'createBackup',
      'EventLog',
      'createProvider',
      'parseSSE',
      'OpfsFileSystem',
      'MemoryFileSystem',
      'renderMarkdown',
      'ClawserAgent',
    ])
      assert.ok(result.exports.includes(name), name);
  } finally {
    await fx.close();
  }
});
