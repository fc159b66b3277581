// A GGUF model file's header, read without its weights (issue 34 §2), on the test model that
// scripts/make-test-gguf.mjs writes; damaged files give a clear error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTestGguf, SHAPE, CHAT_TEMPLATE, PLAIN_CHAT_TEMPLATE } from '../../scripts/make-test-gguf.mjs';
import { GgufError, chatTemplateFamily, readGgufInfo } from '../../web/providers/gguf-info.js';

const bytes = makeTestGguf({ seed: 7 });

test("the test model's header: architecture, name, quantisation, context and its memory, template, tools, parameters", async () => {
  const info = await readGgufInfo(new Blob([bytes]));
  assert.equal(info.version, 3);
  assert.equal(info.architecture, 'llama');
  assert.equal(info.name, 'clawser-test-tiny');
  assert.equal(info.fileType, 'F32');
  assert.equal(info.contextLength, SHAPE.context);
  // A token of context: keys and values (f16) of every key-value head in every layer.
  assert.equal(info.kvBytesPerToken, SHAPE.layers * SHAPE.kvHeads * 2 * (SHAPE.embedding / SHAPE.heads) * 2);
  assert.equal(info.chatTemplate, CHAT_TEMPLATE);
  assert.equal(info.callsTools, true);
  assert.equal(info.tensorCount, 3 + SHAPE.layers * 9);
  assert.equal(info.vocabularySize, 3 + 6 + 128 + 95);
  assert.equal(info.parameters * 4 < bytes.length, true, 'f32 weights fit in the file');
  assert.equal(info.split, null);
});

test('the header is read in slices: a small read size gives the same answer', async () => {
  const whole = await readGgufInfo(new Blob([bytes]));
  const blob = new Blob([bytes]);
  let reads = 0;
  const counted = /** @type {Blob} */ (
    /** @type {unknown} */ ({
      size: blob.size,
      slice: (/** @type {number} */ a, /** @type {number} */ b) => {
        reads++;
        return blob.slice(a, b);
      },
    })
  );
  const sliced = await readGgufInfo(counted);
  assert.deepEqual({ ...sliced, metadata: null }, { ...whole, metadata: null });
  assert.ok(reads >= 1);
});

test('a file that is not GGUF, one cut short and one of another version are refused with what to do', async () => {
  const refused = async (/** @type {Uint8Array<ArrayBuffer>} */ b, /** @type {string} */ code) =>
    assert.rejects(readGgufInfo(new Blob([b])), (err) => err instanceof GgufError && err.code === code && err.message.length > 20);
  await refused(new TextEncoder().encode('PK\x03\x04 this is a zip file, not a model at all'), 'not_gguf');
  await refused(bytes.subarray(0, 2000), 'truncated');
  const v9 = bytes.slice();
  new DataView(v9.buffer).setUint32(4, 9, true);
  await refused(v9, 'unsupported_version');
  // Control: the whole file reads.
  assert.equal((await readGgufInfo(new Blob([bytes]))).architecture, 'llama');
});

test("a file cut short in its tensors' data (its header whole) is refused as cut short; control: the whole file, and one byte \
of padding less than the last tensor's end", async () => {
  const { dataBytes } = await readGgufInfo(new Blob([bytes]));
  assert.ok(dataBytes !== null && dataBytes > 0 && dataBytes <= bytes.length, String(dataBytes));
  for (const cut of [bytes.length - 1000, Math.floor(bytes.length / 2), dataBytes - 1]) {
    await assert.rejects(
      readGgufInfo(new Blob([bytes.subarray(0, cut)])),
      (err) => err instanceof GgufError && err.code === 'truncated' && /cut short/.test(err.message),
      `cut at ${cut} of ${bytes.length}`,
    );
  }
  // Control: the data ends where the last tensor ends; the file may end there.
  assert.equal((await readGgufInfo(new Blob([bytes.subarray(0, dataBytes)]))).architecture, 'llama');
});

test('a chat template is named by its family, as model cards name it; one matching none is "Custom"', () => {
  /** @type {[string, string][]} */
  const cases = [
    ['ChatML', PLAIN_CHAT_TEMPLATE],
    ['ChatML', CHAT_TEMPLATE],
    ['Llama 3', "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' }}"],
    ['Gemma', "{{ '<start_of_turn>' + role + '\\n' + message['content'] | trim + '<end_of_turn>\\n' }}"],
    ['Mistral / Llama 2', "{{ '[INST] ' + message['content'] + ' [/INST]' }}"],
    ['Phi-3', "{{'<|user|>' + '\\n' + message['content'] + '<|end|>' + '\\n'}}"],
    ['Zephyr', "{{ '<|user|>\\n' + message['content'] + eos_token }}"],
    ['Granite', "{{- '<|start_of_role|>user<|end_of_role|>' + message['content'] }}"],
    ['Harmony (gpt-oss)', "{{- '<|start|>' + role + '<|message|>' + content + '<|end|>' }}"],
    ['DeepSeek', "{{'<｜User｜>' + message['content']}}"],
    ['Command R', "{{ '<|START_OF_TURN_TOKEN|><|USER_TOKEN|>' + content }}"],
    ['Custom', '{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}'],
  ];
  for (const [family, template] of cases) assert.equal(chatTemplateFamily(template), family, template);
});

/**
 * The test model with its header damaged as a bad copy or a disk error would; `damage` gets the
 * first metadata key's length (the u64 at byte 24; the key's value type follows the key, at 32 + it).
 * @param {(view: DataView, keyLength: number) => void} damage
 */
function damaged(damage) {
  const copy = bytes.slice();
  const view = new DataView(copy.buffer, copy.byteOffset, copy.byteLength);
  damage(view, Number(view.getBigUint64(24, true)));
  return new Blob([copy]);
}

test('a GGUF file damaged in its header (a length or a value type no writer makes) is refused as damaged, with a clear \
message', async () => {
  /** @type {[string, Blob, RegExp][]} */
  const cases = [
    ['a text longer than any header', damaged((v) => v.setBigUint64(24, 1n << 40n, true)), /impossibly long text: it is damaged/],
    ['a length past any number', damaged((v) => v.setBigUint64(24, 1n << 62n, true)), /impossible length: it is damaged/],
    ['a value of an unknown type', damaged((v, key) => v.setUint32(32 + key, 99, true)), /unknown type 99: it is damaged/],
  ];
  for (const [what, file, message] of cases)
    await assert.rejects(
      readGgufInfo(file),
      (err) => err instanceof GgufError && err.code === 'invalid' && message.test(err.message),
      what,
    );
  // Control: the same bytes undamaged are read.
  assert.equal((await readGgufInfo(damaged(() => {}))).architecture, 'llama');
});
