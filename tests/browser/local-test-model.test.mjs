// The scripted test model (scripts/make-test-gguf.mjs makeScriptedGguf, issue 34 §3) in the real
// runtime: wllama (llama.cpp in WebAssembly) in the app's page, through the model's own chat
// template and llama.cpp's native tool-call parsing. The model is generated here, nothing is
// downloaded. Decoded greedily it plays a whole agent turn: a tool call, then after the tool's
// result a final text, and a new user message calls the tool again. Control: the random test model
// under the same requests makes no such call (so the weights are what makes it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeScriptedGguf, makeTestGguf } from '../../scripts/make-test-gguf.mjs';
import { useFixture } from './fixture.mjs';

const { page } = await useFixture({ page: 'home' });

const FS_LIST = {
  type: 'function',
  function: {
    name: 'fs_list',
    description: 'List files and folders of the workspace (or of a folder in it), with sizes.',
    parameters: { type: 'object', properties: { path: { type: 'string', description: 'Folder to list' } }, required: ['path'] },
  },
};
const FS_READ = {
  type: 'function',
  function: {
    name: 'fs_read',
    description: 'Read a text file from the workspace.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        range: { type: 'object', properties: { from: { type: 'integer' }, to: { type: 'integer' } } },
      },
      required: ['path'],
    },
  },
};

/**
 * Tools like Clawser's (a description and a few parameters each): the test model's tokens are
 * mostly single characters, so 18 of them with the template's text make a prompt of 7000 tokens.
 * @param {number} count
 */
function manyTools(count) {
  return Array.from({ length: count }, (_, i) => ({
    type: 'function',
    function: {
      name: `tool_${i}`,
      description: `Tool number ${i} acts on the workspace: it reads or changes files, pages or settings, and says what it did.`,
      parameters: {
        type: 'object',
        properties: { path: { type: 'string', description: 'Where, inside the workspace' }, mode: { enum: ['read', 'write'] } },
        required: ['path'],
      },
    },
  }));
}

/**
 * @typedef {{id: string, name: string, arguments: string}} Call
 * @typedef {{calls: Call[], content: string, finish: (string | null)[], chunks: number, promptTokens: number}} Reply
 * @typedef {{role: string, content?: string | null, tool_calls?: unknown[], tool_call_id?: string}} Message
 */

/**
 * Loads `model` with wllama in the page and runs each conversation of `steps` (each step: the
 * messages to append, then a streamed chat completion whose reply is appended as the assistant's
 * message; a step of `{tool: content}` appends the tool's result for the previous reply's call).
 * @param {Uint8Array} model
 * @param {{messages?: Message[], tool?: string}[]} steps
 * @param {{tools: unknown[], nCtx?: number}} options
 * @returns {Promise<Reply[]>}
 */
function converse(model, steps, { tools, nCtx = 4096 }) {
  return page.evaluate(
    async ({ base64, steps, tools, nCtx }) => {
      const { Wllama } = await import('@wllama/wllama');
      const quiet = { debug() {}, log() {}, warn() {}, error() {} };
      const wasm = new URL('./web/vendor/wllama/wllama.wasm', location.href).href;
      const wllama = new Wllama({ default: wasm }, { suppressNativeLog: true, logger: quiet });
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      await wllama.loadModel([new Blob([bytes])], { n_ctx: nCtx, n_threads: 1, n_gpu_layers: 0 });
      /** @type {Message[]} */
      const messages = [];
      /** @type {Reply[]} */
      const replies = [];
      try {
        for (const step of steps) {
          if (step.tool !== undefined) {
            const call = replies.at(-1)?.calls[0];
            messages.push({ role: 'tool', tool_call_id: call?.id ?? 'none', content: step.tool });
          }
          messages.push(...(step.messages ?? []));
          const request = { messages, tools, tool_choice: 'auto', stream: true, temperature: 0, max_tokens: 32 };
          // stream_options.include_usage: the last chunk says how long the prompt was (llama-server
          // takes it; wllama's type leaves it out, hence the cast).
          const stream = await wllama.createChatCompletion(
            /** @type {{stream: true, messages: any[]}} any: wllama's message type is stricter than these plain objects */ (
              /** @type {unknown} */ ({ ...request, stream_options: { include_usage: true } })
            ),
          );
          /** @type {Reply} */
          const reply = { calls: [], content: '', finish: [], chunks: 0, promptTokens: 0 };
          for await (const chunk of stream) {
            reply.chunks++;
            reply.promptTokens = Math.max(reply.promptTokens, chunk.usage?.prompt_tokens ?? 0);
            const choice = chunk.choices?.[0];
            if (!choice) continue;
            if (choice.finish_reason) reply.finish.push(choice.finish_reason);
            reply.content += choice.delta?.content ?? '';
            for (const part of choice.delta?.tool_calls ?? []) {
              const index = part.index ?? 0;
              reply.calls[index] ??= { id: '', name: '', arguments: '' };
              if (part.id) reply.calls[index].id = part.id;
              if (part.function?.name) reply.calls[index].name += part.function.name;
              reply.calls[index].arguments += part.function?.arguments ?? '';
            }
          }
          replies.push(reply);
          const toolCalls = reply.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
          messages.push(
            toolCalls.length ? { role: 'assistant', content: null, tool_calls: toolCalls } : { role: 'assistant', content: reply.content },
          );
        }
      } finally {
        await wllama.exit();
      }
      return replies;
    },
    { base64: Buffer.from(model).toString('base64'), steps, tools, nCtx },
  );
}

/** A whole turn, and the next user message. */
const TURN = [
  {
    messages: [
      { role: 'system', content: 'You are Clawser, a helpful assistant.' },
      { role: 'user', content: 'List the files, please.' },
    ],
  },
  {
    tool: JSON.stringify([
      { name: 'notes.md', size: 120 },
      { name: 'src/', size: 0 },
    ]),
  },
  { messages: [{ role: 'user', content: 'And once more.' }] },
];

/** @param {Reply} reply @param {string} name @param {unknown} args */
function assertCall(reply, name, args) {
  assert.equal(reply.calls.length, 1, `one tool call: ${JSON.stringify(reply)}`);
  assert.equal(reply.calls[0].name, name);
  assert.deepEqual(JSON.parse(reply.calls[0].arguments), args);
  assert.ok(reply.calls[0].id, 'the call has an id');
  assert.equal(reply.content, '');
  assert.deepEqual(reply.finish, ['tool_calls']);
}

test('the scripted model plays an agent turn in wllama: a tool call (streamed, parsed), then after its result the final text', async () => {
  const finalText = 'Done: listed the files.';
  const model = makeScriptedGguf({ toolCall: { name: 'fs_list', arguments: { path: '/' } }, finalText });
  const [call, answer, again] = await converse(model, TURN, { tools: [FS_LIST, FS_READ] });
  assertCall(call, 'fs_list', { path: '/' });
  assert.ok(call.chunks >= 3, 'streamed in pieces');
  assert.deepEqual(answer.calls, []);
  assert.equal(answer.content, finalText);
  assert.deepEqual(answer.finish, ['stop']);
  // An older tool turn does not count: a new user message is answered with the call again.
  assertCall(again, 'fs_list', { path: '/' });
});

test('control: the random test model, under the same requests, makes no such call', async () => {
  const [call, answer] = await converse(makeTestGguf({ seed: 1 }), TURN.slice(0, 2), { tools: [FS_LIST, FS_READ] });
  assert.deepEqual(call.calls, [], `no tool call: ${JSON.stringify(call)}`);
  assert.notEqual(answer.content, 'Done: listed the files.');
  assert.deepEqual(call.finish, ['length'], 'it rambles on to max_tokens');
});

test('another script (a tool with nested arguments) behind a long prompt: 18 more tools, 7000 tokens of 8192', async () => {
  const args = { path: 'notes/todo.md', range: { from: 1, to: 20 } };
  const finalText = 'The file has 20 lines about the garden.';
  const model = makeScriptedGguf({ toolCall: { name: 'fs_read', arguments: args }, finalText });
  const [call, answer, again] = await converse(model, TURN, { tools: [FS_LIST, FS_READ, ...manyTools(18)], nCtx: 8192 });
  assert.ok(call.promptTokens > 7000, `a long prompt: ${call.promptTokens} tokens`);
  assertCall(call, 'fs_read', args);
  assert.equal(answer.content, finalText);
  assert.deepEqual(answer.finish, ['stop']);
  assertCall(again, 'fs_read', args);
});
