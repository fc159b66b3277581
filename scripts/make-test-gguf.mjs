#!/usr/bin/env node
// A tiny llama-architecture GGUF for the local model's tests (issue 34 §3): random weights
// (seeded), a byte-level vocabulary (every byte a token, plus the printable ASCII characters and
// the chat template's markers) and a ChatML chat template that supports tools (Hermes-style
// <tool_call> blocks, which llama.cpp recognises). Nothing is downloaded; the file is < 1 MB.
// `--shape bench` writes a wider, deeper one (about 38 MB) for the speed benchmark
// (bench/local-model.mjs), where the tiny one's arithmetic is too small to measure.
//
//   node scripts/make-test-gguf.mjs [out.gguf] [--seed N] [--shape tiny|bench]
//
// The GGUF layout (version 3): magic, version, tensor and metadata counts, the metadata
// key/values, the tensor descriptions, padding to the alignment, then each tensor's data
// (little-endian float32 here), each at an aligned offset.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const ALIGNMENT = 32;
/** GGUF metadata value types. */
const T = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9, UINT64: 10 };
/** ggml tensor type: 32-bit float. */
const GGML_F32 = 0;
/** Token types of tokenizer.ggml.token_type. */
const TOKEN = { NORMAL: 1, UNKNOWN: 2, CONTROL: 3, BYTE: 6 };

/** The model's shape: small enough to load and run at once, big enough to be a llama. */
export const SHAPE = { embedding: 64, layers: 2, heads: 4, kvHeads: 2, feedForward: 128, context: 2048 };
/** The benchmark's model: the same vocabulary and template, enough weights (9.5 M) that speed is the arithmetic's. */
export const BENCH_SHAPE = { embedding: 384, layers: 6, heads: 6, kvHeads: 2, feedForward: 1024, context: 2048 };
/** @typedef {typeof SHAPE} Shape */

/** The chat template's markers, as control tokens. */
const SPECIAL = ['<|im_start|>', '<|im_end|>', '<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>'];

/** ChatML with tools, in the shape of Qwen 2.5 / Hermes 2 Pro templates (written for this project). */
export const CHAT_TEMPLATE = [
  '{%- if tools %}',
  '{{- "<|im_start|>system\\n" }}',
  '{%- if messages[0].role == "system" %}{{- messages[0].content + "\\n\\n" }}{%- endif %}',
  '{{- "# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\n" }}',
  '{{- "You are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}',
  '{%- for tool in tools %}{{- "\\n" }}{{- tool | tojson }}{%- endfor %}',
  '{{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within ' +
    '<tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n' +
    '</tool_call><|im_end|>\\n" }}',
  '{%- elif messages[0].role == "system" %}',
  '{{- "<|im_start|>system\\n" + messages[0].content + "<|im_end|>\\n" }}',
  '{%- endif %}',
  '{%- for message in messages %}',
  '{%- if message.role == "user" or (message.role == "system" and not loop.first) %}',
  '{{- "<|im_start|>" + message.role + "\\n" + message.content + "<|im_end|>\\n" }}',
  '{%- elif message.role == "assistant" %}',
  '{{- "<|im_start|>assistant" }}',
  '{%- if message.content %}{{- "\\n" + message.content }}{%- endif %}',
  '{%- if message.tool_calls %}{%- for tool_call in message.tool_calls %}',
  '{%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}',
  '{{- "\\n<tool_call>\\n{\\"name\\": \\"" + tool_call.name + "\\", \\"arguments\\": " }}',
  '{%- if tool_call.arguments is string %}{{- tool_call.arguments }}{%- else %}{{- tool_call.arguments | tojson }}{%- endif %}',
  '{{- "}\\n</tool_call>" }}',
  '{%- endfor %}{%- endif %}',
  '{{- "<|im_end|>\\n" }}',
  '{%- elif message.role == "tool" %}',
  '{{- "<|im_start|>user\\n<tool_response>\\n" + message.content + "\\n</tool_response><|im_end|>\\n" }}',
  '{%- endif %}',
  '{%- endfor %}',
  '{%- if add_generation_prompt %}{{- "<|im_start|>assistant\\n" }}{%- endif %}',
].join('\n');

/**
 * The vocabulary: <unk>, <s>, </s>, the template's markers, every byte as <0xNN> (byte fallback),
 * then the printable ASCII characters and "▁" (SentencePiece's space) as ordinary pieces.
 * @returns {{tokens: string[], scores: number[], types: number[]}}
 */
export function vocabulary() {
  /** @type {string[]} */
  const tokens = ['<unk>', '<s>', '</s>', ...SPECIAL];
  const types = [TOKEN.UNKNOWN, TOKEN.CONTROL, TOKEN.CONTROL, ...SPECIAL.map(() => TOKEN.CONTROL)];
  for (let b = 0; b < 128; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(TOKEN.BYTE);
  }
  for (const piece of ['▁', ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).filter((c) => c !== ' ')]) {
    tokens.push(piece);
    types.push(TOKEN.NORMAL);
  }
  // Scores rank ordinary pieces above byte fallback; every piece is one character, so ties do not matter.
  const scores = types.map((t) => (t === TOKEN.NORMAL ? -1 : 0));
  return { tokens, scores, types };
}

/** mulberry32: a small seeded generator, so the same seed gives the same file. @param {number} seed */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Grows a byte buffer as the header is written. */
class Writer {
  /** @type {Uint8Array[]} */
  #parts = [];
  length = 0;
  /** @param {Uint8Array} bytes */
  bytes(bytes) {
    this.#parts.push(bytes);
    this.length += bytes.length;
  }
  /** @param {number} size @param {(view: DataView) => void} fill */
  #fixed(size, fill) {
    const b = new Uint8Array(size);
    fill(new DataView(b.buffer));
    this.bytes(b);
  }
  /** @param {number} v */
  u32(v) {
    this.#fixed(4, (d) => d.setUint32(0, v, true));
  }
  /** @param {number} v */
  i32(v) {
    this.#fixed(4, (d) => d.setInt32(0, v, true));
  }
  /** @param {number | bigint} v */
  u64(v) {
    this.#fixed(8, (d) => d.setBigUint64(0, BigInt(v), true));
  }
  /** @param {number} v */
  f32(v) {
    this.#fixed(4, (d) => d.setFloat32(0, v, true));
  }
  /** @param {string} s */
  string(s) {
    const b = new TextEncoder().encode(s);
    this.u64(b.length);
    this.bytes(b);
  }
  /** Zero bytes up to the next multiple of `n`. @param {number} n */
  pad(n) {
    const rest = (n - (this.length % n)) % n;
    if (rest) this.bytes(new Uint8Array(rest));
  }
  /** @returns {Uint8Array<ArrayBuffer>} */
  concat() {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const p of this.#parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

/**
 * The GGUF file's bytes.
 * @param {{seed?: number, shape?: Shape}} [options]
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function makeTestGguf({ seed = 1, shape = SHAPE } = {}) {
  const { embedding: n, layers, heads, kvHeads, feedForward: ff, context } = shape;
  const vocab = vocabulary();
  const nVocab = vocab.tokens.length;
  const kv = (n / heads) * kvHeads;
  /** @type {[string, number, unknown, number?][]} key, type, value, array element type */
  const metadata = [
    ['general.architecture', T.STRING, 'llama'],
    ['general.name', T.STRING, shape === SHAPE ? 'clawser-test-tiny' : 'clawser-test-bench'],
    ['general.alignment', T.UINT32, ALIGNMENT],
    ['general.file_type', T.UINT32, 0],
    ['llama.context_length', T.UINT32, context],
    ['llama.embedding_length', T.UINT32, n],
    ['llama.block_count', T.UINT32, layers],
    ['llama.feed_forward_length', T.UINT32, ff],
    ['llama.attention.head_count', T.UINT32, heads],
    ['llama.attention.head_count_kv', T.UINT32, kvHeads],
    ['llama.attention.layer_norm_rms_epsilon', T.FLOAT32, 1e-5],
    ['llama.rope.dimension_count', T.UINT32, n / heads],
    ['llama.rope.freq_base', T.FLOAT32, 10000],
    ['llama.vocab_size', T.UINT32, nVocab],
    ['tokenizer.ggml.model', T.STRING, 'llama'],
    ['tokenizer.ggml.tokens', T.ARRAY, vocab.tokens, T.STRING],
    ['tokenizer.ggml.scores', T.ARRAY, vocab.scores, T.FLOAT32],
    ['tokenizer.ggml.token_type', T.ARRAY, vocab.types, T.INT32],
    ['tokenizer.ggml.bos_token_id', T.UINT32, 1],
    ['tokenizer.ggml.eos_token_id', T.UINT32, vocab.tokens.indexOf('<|im_end|>')],
    ['tokenizer.ggml.unknown_token_id', T.UINT32, 0],
    ['tokenizer.ggml.add_bos_token', T.BOOL, false],
    ['tokenizer.chat_template', T.STRING, CHAT_TEMPLATE],
  ];
  /** @type {{name: string, dims: number[], init: 'ones' | 'random'}[]} dims innermost first (ggml's ne) */
  const tensors = [{ name: 'token_embd.weight', dims: [n, nVocab], init: 'random' }];
  for (let i = 0; i < layers; i++) {
    tensors.push(
      { name: `blk.${i}.attn_norm.weight`, dims: [n], init: 'ones' },
      { name: `blk.${i}.attn_q.weight`, dims: [n, n], init: 'random' },
      { name: `blk.${i}.attn_k.weight`, dims: [n, kv], init: 'random' },
      { name: `blk.${i}.attn_v.weight`, dims: [n, kv], init: 'random' },
      { name: `blk.${i}.attn_output.weight`, dims: [n, n], init: 'random' },
      { name: `blk.${i}.ffn_norm.weight`, dims: [n], init: 'ones' },
      { name: `blk.${i}.ffn_gate.weight`, dims: [n, ff], init: 'random' },
      { name: `blk.${i}.ffn_up.weight`, dims: [n, ff], init: 'random' },
      { name: `blk.${i}.ffn_down.weight`, dims: [ff, n], init: 'random' },
    );
  }
  tensors.push({ name: 'output_norm.weight', dims: [n], init: 'ones' }, { name: 'output.weight', dims: [n, nVocab], init: 'random' });

  const w = new Writer();
  w.bytes(new TextEncoder().encode('GGUF'));
  w.u32(3);
  w.u64(tensors.length);
  w.u64(metadata.length);
  for (const [key, type, value, elementType] of metadata) {
    w.string(key);
    w.u32(type);
    writeValue(w, type, value, elementType);
  }
  const sizes = tensors.map((t) => t.dims.reduce((a, b) => a * b, 1) * 4);
  let offset = 0;
  tensors.forEach((t, i) => {
    w.string(t.name);
    w.u32(t.dims.length);
    for (const d of t.dims) w.u64(d);
    w.u32(GGML_F32);
    w.u64(offset);
    offset += Math.ceil(sizes[i] / ALIGNMENT) * ALIGNMENT;
  });
  w.pad(ALIGNMENT);
  const next = random(seed);
  tensors.forEach((t, i) => {
    const values = new Float32Array(sizes[i] / 4);
    // Small random weights (scaled by fan-in) keep activations finite through the layers.
    const scale = 1 / Math.sqrt(t.dims[0]);
    for (let k = 0; k < values.length; k++) values[k] = t.init === 'ones' ? 1 : (next() * 2 - 1) * scale;
    w.bytes(new Uint8Array(values.buffer));
    w.pad(ALIGNMENT);
  });
  return w.concat();
}

/** @param {Writer} w @param {number} type @param {unknown} value @param {number} [elementType] */
function writeValue(w, type, value, elementType) {
  if (type === T.STRING) w.string(String(value));
  else if (type === T.UINT32) w.u32(Number(value));
  else if (type === T.INT32) w.i32(Number(value));
  else if (type === T.FLOAT32) w.f32(Number(value));
  else if (type === T.BOOL) w.bytes(new Uint8Array([value ? 1 : 0]));
  else if (type === T.UINT64) w.u64(Number(value));
  else if (type === T.ARRAY) {
    const items = /** @type {unknown[]} */ (value);
    w.u32(/** @type {number} */ (elementType));
    w.u64(items.length);
    for (const item of items) writeValue(w, /** @type {number} */ (elementType), item);
  } else throw new Error(`make-test-gguf: no writer for metadata type ${type}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--seed');
  const seed = at === -1 ? 1 : Number(args.splice(at, 2)[1]);
  if (!Number.isInteger(seed)) throw new Error('make-test-gguf: --seed takes an integer');
  const shapeAt = args.indexOf('--shape');
  const shapeName = shapeAt === -1 ? 'tiny' : args.splice(shapeAt, 2)[1];
  const shape = { tiny: SHAPE, bench: BENCH_SHAPE }[shapeName ?? ''];
  if (!shape) throw new Error('make-test-gguf: --shape takes tiny or bench');
  const out = args[0] ?? 'test-model.gguf';
  const bytes = makeTestGguf({ seed, shape });
  await writeFile(out, bytes);
  console.log(`wrote ${out} (${bytes.length} bytes, seed ${seed})`);
}
