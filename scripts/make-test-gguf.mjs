#!/usr/bin/env node
// A tiny llama-architecture GGUF for the local model's tests (issue 34 §3): random weights
// (seeded), a byte-level vocabulary (every byte a token, plus the printable ASCII characters and
// the chat template's markers) and a ChatML chat template that supports tools (Hermes-style
// <tool_call> blocks, which llama.cpp recognises). Nothing is downloaded; the file is < 1 MB.
// With --scripted, a model whose weights play one agent turn instead (makeScriptedGguf): a tool
// call after a user's message, a final text after the tool's answer. `--shape bench` writes a
// wider, deeper random one (about 38 MB) for the speed benchmark (bench/local-model.mjs), where
// the tiny one's arithmetic is too small to measure.
//
//   node scripts/make-test-gguf.mjs [out.gguf] [--seed N] [--shape tiny|bench]
//   node scripts/make-test-gguf.mjs [out.gguf] --scripted [--tool fs_list] [--arguments '{"path": "/"}'] [--final 'Done.']
//
// The GGUF layout (version 3): magic, version, tensor and metadata counts, the metadata
// key/values, the tensor descriptions, padding to the alignment, then each tensor's data
// (little-endian float32 here), each at an aligned offset.
import { rng } from '../bench/rng.mjs';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const ALIGNMENT = 32;
/** GGUF metadata value types. */
const T = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9, UINT64: 10 };
/** ggml tensor type: 32-bit float. */
const GGML_F32 = 0;
/** Token types of tokenizer.ggml.token_type. */
const TOKEN = { NORMAL: 1, UNKNOWN: 2, CONTROL: 3, USER_DEFINED: 4, BYTE: 6 };

/**
 * @typedef {{embedding: number, layers: number, heads: number, kvHeads: number, feedForward: number, context: number, headDim?: number}}
 *   Shape headDim: when it is not embedding / heads
 */

/** The model's shape: small enough to load and run at once, big enough to be a llama. @type {Shape} */
export const SHAPE = { embedding: 64, layers: 2, heads: 4, kvHeads: 2, feedForward: 128, context: 2048 };
/** The benchmark's model: the same vocabulary and template, enough weights (9.5 M) that speed is the arithmetic's. */
export const BENCH_SHAPE = { embedding: 384, layers: 6, heads: 6, kvHeads: 2, feedForward: 1024, context: 2048 };

/**
 * The scripted model's shape: one layer with one head of 16 (all it needs), so a long prompt
 * costs an eighth of the random model's attention work, and a context of 131072 tokens (its
 * vocabulary is mostly single characters: a prompt takes about a token per character, and the
 * agent's prompt with every tool's schema is over 32k).
 * @type {Shape}
 */
export const SCRIPTED_SHAPE = { embedding: 64, layers: 1, heads: 1, kvHeads: 1, headDim: 16, feedForward: 16, context: 131072 };

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
 * The vocabulary: <unk>, <s>, </s>, the template's markers, the bytes as <0xNN> (byte fallback;
 * 0x00–0x7F by default, since random weights given the upper half emit invalid UTF-8), then the
 * printable ASCII characters and "▁" (SentencePiece's space) as ordinary pieces.
 * @param {{bytes?: 128 | 256, markerType?: number}} [options] markerType: the token type of the
 *   <tool_call>/<tool_response> tags (control by default)
 * @returns {{tokens: string[], scores: number[], types: number[]}}
 */
export function vocabulary({ bytes = 128, markerType = TOKEN.CONTROL } = {}) {
  /** @type {string[]} */
  const tokens = ['<unk>', '<s>', '</s>', ...SPECIAL];
  const types = [TOKEN.UNKNOWN, TOKEN.CONTROL, TOKEN.CONTROL, ...SPECIAL.map((t) => (t.startsWith('<|') ? TOKEN.CONTROL : markerType))];
  for (let b = 0; b < bytes; b++) {
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

/** @typedef {{name: string, dims: number[], data: Float32Array}} Tensor dims innermost first (ggml's ne) */
/** @typedef {[string, number, unknown, number?]} Metadatum key, type, value, array element type */

/**
 * The llama hyper-parameters and tokenizer of a test model, as GGUF metadata.
 * @param {{name: string, shape: Shape, vocab: ReturnType<typeof vocabulary>, ropeBase: number, extra?: Metadatum[],
 *   chatTemplate?: string}} model
 * @returns {Metadatum[]}
 */
function llamaMetadata({ name, shape, vocab, ropeBase, extra = [], chatTemplate = CHAT_TEMPLATE }) {
  const { embedding: n, layers, heads, kvHeads, feedForward: ff, context } = shape;
  const headDim = shape.headDim ?? n / heads;
  return [
    ['general.architecture', T.STRING, 'llama'],
    ['general.name', T.STRING, name],
    ['general.alignment', T.UINT32, ALIGNMENT],
    ['general.file_type', T.UINT32, 0],
    ['llama.context_length', T.UINT32, context],
    ['llama.embedding_length', T.UINT32, n],
    ['llama.block_count', T.UINT32, layers],
    ['llama.feed_forward_length', T.UINT32, ff],
    ['llama.attention.head_count', T.UINT32, heads],
    ['llama.attention.head_count_kv', T.UINT32, kvHeads],
    ['llama.attention.layer_norm_rms_epsilon', T.FLOAT32, RMS_EPSILON],
    .../** @type {Metadatum[]} */ (
      shape.headDim
        ? [
            ['llama.attention.key_length', T.UINT32, headDim],
            ['llama.attention.value_length', T.UINT32, headDim],
          ]
        : []
    ),
    ['llama.rope.dimension_count', T.UINT32, headDim],
    ['llama.rope.freq_base', T.FLOAT32, ropeBase],
    ['llama.vocab_size', T.UINT32, vocab.tokens.length],
    ['tokenizer.ggml.model', T.STRING, 'llama'],
    ['tokenizer.ggml.tokens', T.ARRAY, vocab.tokens, T.STRING],
    ['tokenizer.ggml.scores', T.ARRAY, vocab.scores, T.FLOAT32],
    ['tokenizer.ggml.token_type', T.ARRAY, vocab.types, T.INT32],
    ['tokenizer.ggml.bos_token_id', T.UINT32, 1],
    ['tokenizer.ggml.eos_token_id', T.UINT32, vocab.tokens.indexOf('<|im_end|>')],
    ['tokenizer.ggml.unknown_token_id', T.UINT32, 0],
    ['tokenizer.ggml.add_bos_token', T.BOOL, false],
    ...extra,
    ['tokenizer.chat_template', T.STRING, chatTemplate],
  ];
}

/** The names and shapes of a llama model's tensors, in file order. @param {Shape} shape @param {number} nVocab */
function llamaTensorShapes(shape, nVocab) {
  const { embedding: n, layers, heads, kvHeads, feedForward: ff } = shape;
  const headDim = shape.headDim ?? n / heads;
  const kv = headDim * kvHeads;
  /** @type {{name: string, dims: number[], norm?: true}[]} */
  const shapes = [{ name: 'token_embd.weight', dims: [n, nVocab] }];
  for (let i = 0; i < layers; i++) {
    shapes.push(
      { name: `blk.${i}.attn_norm.weight`, dims: [n], norm: true },
      { name: `blk.${i}.attn_q.weight`, dims: [n, headDim * heads] },
      { name: `blk.${i}.attn_k.weight`, dims: [n, kv] },
      { name: `blk.${i}.attn_v.weight`, dims: [n, kv] },
      { name: `blk.${i}.attn_output.weight`, dims: [headDim * heads, n] },
      { name: `blk.${i}.ffn_norm.weight`, dims: [n], norm: true },
      { name: `blk.${i}.ffn_gate.weight`, dims: [n, ff] },
      { name: `blk.${i}.ffn_up.weight`, dims: [n, ff] },
      { name: `blk.${i}.ffn_down.weight`, dims: [ff, n] },
    );
  }
  shapes.push({ name: 'output_norm.weight', dims: [n], norm: true }, { name: 'output.weight', dims: [n, nVocab] });
  return shapes;
}

/**
 * ChatML without tools: the template of a model that was not trained to call them (its tool calls
 * come from the grammar, never from its template).
 */
export const PLAIN_CHAT_TEMPLATE =
  '{%- for message in messages %}{{- "<|im_start|>" + message.role + "\\n" + message.content + "<|im_end|>\\n" }}{%- endfor %}' +
  '{%- if add_generation_prompt %}{{- "<|im_start|>assistant\\n" }}{%- endif %}';

/**
 * The GGUF file's bytes: a llama with random weights, tiny unless `shape` says (BENCH_SHAPE).
 * @param {{seed?: number, chatTemplate?: string, shape?: Shape}} [options] chatTemplate: CHAT_TEMPLATE (with tools) unless given
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function makeTestGguf({ seed = 1, chatTemplate, shape = SHAPE } = {}) {
  const vocab = vocabulary();
  const next = rng(seed);
  const tensors = llamaTensorShapes(shape, vocab.tokens.length).map(({ name, dims, norm }) => {
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
    // Small random weights (scaled by fan-in) keep activations finite through the layers.
    const scale = 1 / Math.sqrt(dims[0]);
    for (let k = 0; k < data.length; k++) data[k] = norm ? 1 : (next() * 2 - 1) * scale;
    return { name, dims, data };
  });
  const name = shape === SHAPE ? 'clawser-test-tiny' : 'clawser-test-bench';
  return writeGguf(llamaMetadata({ name, shape, vocab, ropeBase: 10000, ...(chatTemplate ? { chatTemplate } : {}) }), tensors);
}

const RMS_EPSILON = 1e-5;

/** What the scripted model plays unless told otherwise. */
export const SCRIPT = Object.freeze({ toolCall: { name: 'fs_list', arguments: { path: '/' } }, finalText: 'Done: listed the files.' });

/**
 * The scripted model's attention head that tells "a tool has just answered". At the "\n" that
 * ends "<|im_start|>assistant\n" it scores the latest </tool_response> by its distance Δ in
 * tokens, Σ cos[i]·cos(θᵢΔ) + sin[i]·sin(θᵢΔ) over RoPE's 8 frequency pairs (θᵢ = ropeBase^(-i/8)):
 * at least `high` for Δ in `window` (a tool turn that has just closed: Δ is 13 with CHAT_TEMPLATE)
 * and at most `low` from Δ = `far` to `longest` (an older tool turn, with a reply and a user turn
 * after it, is 33 or more tokens back). Every other token scores 0, so the head's weight on a
 * tool turn that has just closed is at least 0.98 among 32768 tokens, and on an older one at most
 * 0.02 among 20. The coefficients come from a linear program (the least total amplitude within
 * these bounds), which keeps the f16 rounding of the KV cache below 0.2 of a point.
 */
export const RECENT_TOOL_RESPONSE = Object.freeze({
  ropeBase: 100000,
  window: [8, 18],
  far: 28,
  longest: 32768,
  high: 14.9,
  low: -1.5,
  cos: [0.87, -4.3, 13.55, 15.73, 11.3, 6.15, 0, -31.68],
  sin: [0, -1.55, 4.91, -2.99, -4.87, -10.4, -5.6, -54.28],
});

/**
 * The score RECENT_TOOL_RESPONSE's head gives a </tool_response> `delta` tokens back.
 * @param {number} delta
 */
export function recentToolResponseScore(delta) {
  const { ropeBase, cos, sin } = RECENT_TOOL_RESPONSE;
  let score = 0;
  for (let i = 0; i < 8; i++) {
    const theta = ropeBase ** (-i / 8) * delta;
    score += cos[i] * Math.cos(theta) + sin[i] * Math.sin(theta);
  }
  return score;
}

/** A script the scripted model cannot play (a name with spaces, two pieces alike, …). */
export class ScriptError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'ScriptError';
    this.code = 'invalid_script';
  }
}

/**
 * JSON as Python's json.dumps writes it (", " and ": "), the spacing chat templates' `tojson` uses.
 * @param {unknown} value
 * @returns {string}
 */
function pythonJson(value) {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`)
      .join(', ')}}`;
  const text = JSON.stringify(value);
  if (text === undefined) throw new ScriptError(`make-test-gguf: ${String(value)} has no JSON form`);
  return text;
}

/**
 * The pieces the scripted model says: the tool call's text in the order it is written, and the
 * final answer. Each is one vocabulary token.
 * @param {{toolCall: {name: string, arguments: Record<string, unknown>}, finalText: string}} script
 */
export function scriptPieces({ toolCall, finalText }) {
  const { name, arguments: args } = toolCall;
  if (typeof name !== 'string' || !/^[^\s"\\]+$/.test(name))
    throw new ScriptError(`make-test-gguf: the tool name ${JSON.stringify(name)} must have no spaces, quotes or backslashes`);
  if (!args || typeof args !== 'object' || Array.isArray(args))
    throw new ScriptError('make-test-gguf: the tool call\'s arguments must be an object, e.g. {"path": "/"}');
  if (typeof finalText !== 'string' || !finalText.trim()) throw new ScriptError('make-test-gguf: the final text must not be empty');
  const call = ['\n{"name": "', name, '", "arguments": ', pythonJson(args), '}\n'];
  const pieces = [...call, finalText];
  const known = new Set(vocabulary({ bytes: 256 }).tokens);
  for (const [i, piece] of pieces.entries()) {
    if (known.has(piece) || pieces.indexOf(piece) !== i)
      throw new ScriptError(`make-test-gguf: ${JSON.stringify(piece)} is already a token: choose a longer name or text`);
    // A piece inside the role names would change how far back a tool's answer is (RECENT_TOOL_RESPONSE).
    if ('<|im_start|>assistant\n<|im_start|>user\n'.includes(piece))
      throw new ScriptError(`make-test-gguf: ${JSON.stringify(piece)} is part of the template's role names: choose another`);
  }
  return { call, finalText };
}

/**
 * A tiny llama whose weights play one agent turn through CHAT_TEMPLATE when decoded greedily:
 * after a user's message it calls `toolCall` (`<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`),
 * after a tool's answer it says `finalText`; either reply ends with <|im_end|>.
 *
 * How: every scripted piece is one token (user-defined, so the tokenizer finds it in a prompt
 * as a whole, as it writes it), and the next token is a function of the current one (a bigram
 * table: the embedding puts each token on its own axis, the output matrix maps it to its
 * successor; the FFN is zero). The one choice, at the "\n" that ends
 * "<|im_start|>assistant\n", comes from the one attention head: its query (from "\n") meets a key
 * only </tool_response> has, scored by distance (RECENT_TOOL_RESPONSE), and its value adds an
 * "answered" axis that turns the "\n" → <tool_call> entry into "\n" → finalText. "\n" also
 * prefers "\n" second, after the name and after the arguments: node-llama-cpp's function-calling
 * grammars end a name with "\n" and the arguments with "\n\n\n\n", and pick the best allowed token.
 * @param {{toolCall?: {name: string, arguments: Record<string, unknown>}, finalText?: string, context?: number}} [script]
 *   context: the context length the file states (default SCRIPTED_SHAPE's; a short one makes an agent's prompt too long for it)
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function makeScriptedGguf({ toolCall = SCRIPT.toolCall, finalText = SCRIPT.finalText, context } = {}) {
  const { call, finalText: answer } = scriptPieces({ toolCall, finalText });
  const base = vocabulary({ bytes: 256, markerType: TOKEN.USER_DEFINED });
  const vocab = {
    tokens: [...base.tokens, ...call, answer],
    scores: [...base.scores, ...call.map(() => 0), 0],
    types: [...base.types, ...call.map(() => TOKEN.USER_DEFINED), TOKEN.USER_DEFINED],
  };
  const id = (/** @type {string} */ token) => vocab.tokens.indexOf(token);
  const { embedding: n } = SCRIPTED_SHAPE;
  const nVocab = vocab.tokens.length;
  const lineBreak = id('<0x0A>');
  const toolCallOpen = id('<tool_call>');
  const [nameOpen, name, argumentsOpen, args, close] = call.map(id);
  const toolCallClose = id('</tool_call>');
  const end = id('<|im_end|>');
  const final = id(answer);
  // The residual stream's axes: one for every other token, "answered", </tool_response>, then one per state.
  const AXIS = { other: 0, answered: 1, toolResponseEnd: 2 };
  /** @type {[number, number, number?][]} state token, its successor, the successor a grammar may fall back to */
  const chain = [
    [lineBreak, toolCallOpen, lineBreak],
    [toolCallOpen, nameOpen],
    [nameOpen, name],
    [name, argumentsOpen, lineBreak],
    [argumentsOpen, args],
    [args, close, lineBreak],
    [close, toolCallClose],
    [toolCallClose, end],
    [final, end],
  ];
  /** @type {Map<number, number>} */
  const axisOf = new Map(chain.map(([token], i) => [token, 3 + i]));
  axisOf.set(id('</tool_response>'), AXIS.toolResponseEnd);
  const axis = (/** @type {number} */ token) => axisOf.get(token) ?? AXIS.other;
  const lineBreakAxis = axis(lineBreak);

  const tensors = llamaTensorShapes(SCRIPTED_SHAPE, nVocab).map(({ name, dims, norm }) => {
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
    if (norm) data.fill(1);
    return { name, dims, data };
  });
  const tensor = (/** @type {string} */ name) => /** @type {Tensor} */ (tensors.find((t) => t.name === name)).data;
  /** Sets W[row][column] of a matrix stored a row of `inputs` at a time (ggml's ne0). */
  const set = (
    /** @type {Float32Array} */ w,
    /** @type {number} */ row,
    /** @type {number} */ column,
    /** @type {number} */ v,
    inputs = n,
  ) => {
    w[row * inputs + column] = v;
  };
  const embedding = tensor('token_embd.weight');
  for (let t = 0; t < nVocab; t++) set(embedding, t, axis(t), 1);
  // RMSNorm turns a one-axis embedding of 1 into that axis at `normed`.
  const normed = 1 / Math.sqrt(1 / n + RMS_EPSILON);
  // Output: a successor gets PRIMARY·normed, a fallback SECONDARY·normed, every other token 0.
  const PRIMARY = 4;
  const SECONDARY = 2;
  const ANSWERED = 6;
  const output = tensor('output.weight');
  for (const [state, successor, fallback] of chain) {
    set(output, successor, axis(state), PRIMARY);
    if (fallback !== undefined) set(output, fallback, axis(state), SECONDARY);
  }
  set(output, end, AXIS.other, PRIMARY);
  set(output, end, AXIS.toolResponseEnd, PRIMARY);
  // At "\n", finalText beats <tool_call> by ANSWERED·(answered − ½)·normed: the head's weight decides.
  set(output, final, lineBreakAxis, PRIMARY - ANSWERED / 2);
  set(output, final, AXIS.answered, ANSWERED);
  // Layer 0, head 0 (key/value head 0): the "a tool has just answered" head.
  const { cos, sin } = RECENT_TOOL_RESPONSE;
  const headDim = /** @type {number} */ (SCRIPTED_SHAPE.headDim);
  const q = tensor('blk.0.attn_q.weight');
  const k = tensor('blk.0.attn_k.weight');
  const v = tensor('blk.0.attn_v.weight');
  const o = tensor('blk.0.attn_output.weight');
  const toolResponseEnd = AXIS.toolResponseEnd;
  for (let i = 0; i < headDim / 2; i++) {
    // Key (1, 0) on every pair; query √headDim·(cos, −sin): after RoPE turns them by their
    // positions, q·k/√headDim = cos·cos(θΔ) + sin·sin(θΔ).
    set(k, 2 * i, toolResponseEnd, 1 / normed);
    set(q, 2 * i, lineBreakAxis, (Math.sqrt(headDim) * cos[i]) / normed);
    set(q, 2 * i + 1, lineBreakAxis, (-Math.sqrt(headDim) * sin[i]) / normed);
  }
  set(v, 0, toolResponseEnd, 1 / normed);
  set(o, AXIS.answered, 0, 1, headDim);
  const metadata = llamaMetadata({
    name: 'clawser-test-scripted',
    shape: context ? { ...SCRIPTED_SHAPE, context } : SCRIPTED_SHAPE,
    vocab,
    ropeBase: RECENT_TOOL_RESPONSE.ropeBase,
    // No "▁" after a special token, so a prompt's tokens are the same whoever renders it.
    extra: [['tokenizer.ggml.add_space_prefix', T.BOOL, false]],
  });
  return writeGguf(metadata, tensors);
}

/**
 * A GGUF file (version 3, f32 tensors).
 * @param {Metadatum[]} metadata
 * @param {Tensor[]} tensors
 * @returns {Uint8Array<ArrayBuffer>}
 */
function writeGguf(metadata, tensors) {
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
  let offset = 0;
  for (const t of tensors) {
    w.string(t.name);
    w.u32(t.dims.length);
    for (const d of t.dims) w.u64(d);
    w.u32(GGML_F32);
    w.u64(offset);
    offset += Math.ceil(t.data.byteLength / ALIGNMENT) * ALIGNMENT;
  }
  w.pad(ALIGNMENT);
  for (const t of tensors) {
    w.bytes(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    w.pad(ALIGNMENT);
  }
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

/** @param {string[]} args @param {string} flag */
function option(args, flag) {
  const at = args.indexOf(flag);
  return at === -1 ? undefined : args.splice(at, 2)[1];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const scripted = args.indexOf('--scripted');
  if (scripted !== -1) args.splice(scripted, 1);
  const seedText = option(args, '--seed');
  const tool = option(args, '--tool');
  const toolArgs = option(args, '--arguments');
  const final = option(args, '--final');
  const seed = seedText === undefined ? 1 : Number(seedText);
  if (!Number.isInteger(seed)) throw new Error('make-test-gguf: --seed takes an integer');
  const shapeAt = args.indexOf('--shape');
  const shapeName = shapeAt === -1 ? 'tiny' : args.splice(shapeAt, 2)[1];
  const shape = { tiny: SHAPE, bench: BENCH_SHAPE }[shapeName ?? ''];
  if (!shape) throw new Error('make-test-gguf: --shape takes tiny or bench');
  const out = args[0] ?? (scripted === -1 ? 'test-model.gguf' : 'test-model-scripted.gguf');
  const bytes =
    scripted === -1
      ? makeTestGguf({ seed, shape })
      : makeScriptedGguf({
          toolCall: { name: tool ?? SCRIPT.toolCall.name, arguments: toolArgs ? JSON.parse(toolArgs) : SCRIPT.toolCall.arguments },
          finalText: final ?? SCRIPT.finalText,
        });
  await writeFile(out, bytes);
  console.log(`wrote ${out} (${bytes.length} bytes, ${scripted === -1 ? `seed ${seed}` : 'scripted'})`);
}
