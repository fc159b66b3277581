// The scripted test model (scripts/make-test-gguf.mjs makeScriptedGguf, issue 34 §3): its file
// (size, header, vocabulary) and, run here by a small reference of llama.cpp's arithmetic for its
// one layer (f16 keys and queries, as llama.cpp's KV cache keeps them), greedy decoding plays its
// script on generated conversations of every length up to its context. The real runtimes are in
// tests/browser/local-test-model.test.mjs (wllama).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CHAT_TEMPLATE,
  RECENT_TOOL_RESPONSE,
  SCRIPT,
  SCRIPTED_SHAPE,
  ScriptError,
  makeScriptedGguf,
  makeTestGguf,
  recentToolResponseScore,
} from '../../scripts/make-test-gguf.mjs';
import { readGgufInfo } from '../../web/providers/gguf-info.js';
import { rng } from '../../bench/rng.mjs';

const TOOL_CALL = '<tool_call>\n{"name": "fs_list", "arguments": {"path": "/"}}\n</tool_call>';

/**
 * The parts of a GGUF file this test needs: its metadata and its f32 tensors.
 * @param {Uint8Array} bytes
 */
function readGguf(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const u32 = () => ((at += 4), view.getUint32(at - 4, true));
  const u64 = () => ((at += 8), Number(view.getBigUint64(at - 8, true)));
  const string = () => {
    const length = u64();
    at += length;
    return new TextDecoder().decode(bytes.subarray(at - length, at));
  };
  /** @param {number} type @returns {unknown} */
  const value = (type) => {
    if (type === 8) return string();
    if (type === 9) {
      const element = u32();
      return Array.from({ length: u64() }, () => value(element));
    }
    const size = { 4: 4, 5: 4, 6: 4, 7: 1, 10: 8 }[type];
    if (!size) throw new Error(`type ${type}`);
    at += size;
    if (type === 6) return view.getFloat32(at - 4, true);
    if (type === 5) return view.getInt32(at - 4, true);
    if (type === 7) return view.getUint8(at - 1) === 1;
    return type === 10 ? Number(view.getBigUint64(at - 8, true)) : view.getUint32(at - 4, true);
  };
  at = 8; // past "GGUF" and the version
  const tensorCount = u64();
  const metadataCount = u64();
  /** @type {Record<string, any>} any: the values' types depend on the key */
  const meta = {};
  for (let i = 0; i < metadataCount; i++) {
    const key = string();
    meta[key] = value(u32());
  }
  const infos = Array.from({ length: tensorCount }, () => {
    const name = string();
    const dims = Array.from({ length: u32() }, u64);
    assert.equal(u32(), 0, 'f32');
    return { name, dims, offset: u64() };
  });
  const alignment = meta['general.alignment'] ?? 32;
  const start = Math.ceil(at / alignment) * alignment;
  /** @type {Record<string, Float32Array>} */
  const tensors = {};
  for (const { name, dims, offset } of infos) {
    const count = dims.reduce((a, b) => a * b, 1);
    tensors[name] = new Float32Array(bytes.slice(start + offset, start + offset + count * 4).buffer);
  }
  return { meta, tensors };
}

/** Rounds to the nearest IEEE half-precision value (what an f16 KV cache keeps). @param {number} x */
function f16(x) {
  if (x === 0) return 0;
  const step = 2 ** (Math.max(Math.floor(Math.log2(Math.abs(x))), -14) - 10);
  return Math.round(x / step) * step;
}

/**
 * The scripted model as llama.cpp computes it (one layer; the greedy next token at the end of a
 * token sequence), with its tokenizer for this vocabulary (control and user-defined tokens split
 * out longest first, then one token per character, bytes for the rest: the vocabulary has no
 * longer ordinary pieces, so SentencePiece merges nothing).
 * @param {Uint8Array} bytes
 */
function scriptedModel(bytes) {
  const { meta, tensors } = readGguf(bytes);
  const tokens = /** @type {string[]} */ (meta['tokenizer.ggml.tokens']);
  const types = /** @type {number[]} */ (meta['tokenizer.ggml.token_type']);
  assert.equal(meta['llama.block_count'], 1);
  assert.ok(
    tokens.every((t, i) => types[i] !== 1 || [...t].length === 1),
    'ordinary pieces are single characters',
  );
  const n = meta['llama.embedding_length'];
  const headDim = meta['llama.attention.key_length'];
  const eps = meta['llama.attention.layer_norm_rms_epsilon'];
  const base = meta['llama.rope.freq_base'];
  const id = new Map(tokens.map((t, i) => [t, i]));
  const special = tokens.filter((_, i) => types[i] === 3 || types[i] === 4).sort((a, b) => b.length - a.length);
  /** @param {string} text @returns {number[]} */
  const tokenize = (text) => {
    /** @type {(string | number)[]} */
    let parts = [text];
    for (const s of special) {
      parts = parts.flatMap((p) =>
        typeof p === 'number' ? [p] : p.split(s).flatMap((piece, i) => (i ? [id.get(s) ?? 0, piece] : [piece])),
      );
    }
    return parts.flatMap((p) => {
      if (typeof p === 'number') return [p];
      return [...p.replaceAll(' ', '▁')].flatMap((c) => {
        const piece = id.get(c);
        if (piece !== undefined && types[piece] === 1) return [piece];
        return [...new TextEncoder().encode(c)].map((b) => id.get(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`) ?? 0);
      });
    });
  };
  /** y = W x for W stored a row of `x.length` inputs at a time. @param {Float32Array} w @param {ArrayLike<number>} x */
  const matmul = (w, x) =>
    Float32Array.from({ length: w.length / x.length }, (_, r) => {
      let s = 0;
      for (let c = 0; c < x.length; c++) s += w[r * x.length + c] * x[c];
      return s;
    });
  /** @param {ArrayLike<number>} x @param {Float32Array} weight */
  const rmsNorm = (x, weight) => {
    let ss = 0;
    for (let i = 0; i < x.length; i++) ss += x[i] * x[i];
    const scale = 1 / Math.sqrt(ss / x.length + eps);
    return Float32Array.from(x, (v, i) => v * scale * weight[i]);
  };
  /** @param {Float32Array} x @param {number} position */
  const rope = (x, position) => {
    const out = Float32Array.from(x);
    for (let i = 0; i < headDim / 2; i++) {
      const angle = position * base ** ((-2 * i) / headDim);
      out[2 * i] = x[2 * i] * Math.cos(angle) - x[2 * i + 1] * Math.sin(angle);
      out[2 * i + 1] = x[2 * i] * Math.sin(angle) + x[2 * i + 1] * Math.cos(angle);
    }
    return out;
  };
  const t = tensors;
  /** @param {number} token */
  const embed = (token) => t['token_embd.weight'].subarray(token * n, (token + 1) * n);
  // A token's normed embedding, key (before RoPE) and value depend on the token alone.
  const normed = tokens.map((_, token) => rmsNorm(embed(token), t['blk.0.attn_norm.weight']));
  const keys = normed.map((x) => matmul(t['blk.0.attn_k.weight'], x));
  const values = normed.map((x) => matmul(t['blk.0.attn_v.weight'], x).map(f16));
  /** The tokens evaluated so far and their keys (f16 after RoPE, as llama.cpp caches them). */
  /** @type {number[]} */
  const cached = [];
  /** @type {Float32Array[]} */
  const cachedKeys = [];
  /**
   * Evaluates `sequence` from where it leaves the cache and returns the greedy next token.
   * @param {number[]} sequence
   */
  const next = (sequence) => {
    let same = 0;
    while (same < Math.min(cached.length, sequence.length - 1) && cached[same] === sequence[same]) same++;
    cached.length = same;
    cachedKeys.length = same;
    for (let p = same; p < sequence.length; p++) {
      cached.push(sequence[p]);
      const key = keys[sequence[p]];
      // A zero key stays zero under RoPE (most tokens: only </tool_response> has a key).
      cachedKeys.push(key.some((v) => v !== 0) ? rope(key, p).map(f16) : key);
    }
    const m = sequence.length - 1;
    const e = embed(sequence[m]);
    const q = rope(matmul(t['blk.0.attn_q.weight'], normed[sequence[m]]), m).map(f16);
    const scores = new Float64Array(sequence.length);
    let top = -Infinity;
    for (let p = 0; p <= m; p++) {
      const k = cachedKeys[p];
      let s = 0;
      for (let i = 0; i < headDim; i++) s += k[i] * q[i];
      scores[p] = s / Math.sqrt(headDim);
      if (scores[p] > top) top = scores[p];
    }
    let sum = 0;
    const o = new Float64Array(headDim);
    for (let p = 0; p <= m; p++) {
      const w = Math.exp(scores[p] - top);
      sum += w;
      const v = values[sequence[p]];
      for (let i = 0; i < headDim; i++) o[i] += w * v[i];
    }
    const attended = matmul(
      t['blk.0.attn_output.weight'],
      o.map((x) => x / sum),
    );
    const h = Float32Array.from(e, (v, i) => v + attended[i]);
    const f = rmsNorm(h, t['blk.0.ffn_norm.weight']);
    const up = matmul(t['blk.0.ffn_up.weight'], f);
    const gate = matmul(t['blk.0.ffn_gate.weight'], f).map((g, i) => (g / (1 + Math.exp(-g))) * up[i]);
    const down = matmul(t['blk.0.ffn_down.weight'], gate);
    const logits = matmul(
      t['output.weight'],
      rmsNorm(
        Float32Array.from(h, (v, i) => v + down[i]),
        t['output_norm.weight'],
      ),
    );
    return logits.indexOf(Math.max(...logits));
  };
  const end = id.get('<|im_end|>');
  /** Greedy decoding after `prompt`, to <|im_end|> (or 16 tokens). @param {string} prompt */
  const reply = (prompt) => {
    const sequence = tokenize(prompt);
    let text = '';
    for (let i = 0; i < 16; i++) {
      const token = next(sequence);
      if (token === end) return { text: text.replaceAll('▁', ' '), ended: true };
      sequence.push(token);
      text += tokens[token].startsWith('<0x') ? String.fromCharCode(Number.parseInt(tokens[token].slice(3, 5), 16)) : tokens[token];
    }
    return { text: text.replaceAll('▁', ' '), ended: false };
  };
  return { meta, tensors, tokens, types, tokenize, reply, id };
}

/** JSON as the template's `tojson` writes it. @param {unknown} v @returns {string} */
const toJson = (v) =>
  Array.isArray(v)
    ? `[${v.map(toJson).join(', ')}]`
    : v && typeof v === 'object'
      ? `{${Object.entries(v)
          .map(([k, x]) => `${JSON.stringify(k)}: ${toJson(x)}`)
          .join(', ')}}`
      : JSON.stringify(v);

/**
 * CHAT_TEMPLATE's rendering, with the generation prompt.
 * @param {{role: string, content?: string, call?: {name: string, arguments: unknown}}[]} messages
 * @param {unknown[]} tools
 */
function render(messages, tools) {
  const [first, ...rest] = messages;
  const system = first?.role === 'system' ? first.content : undefined;
  let out = '';
  if (tools.length) {
    out += `<|im_start|>system\n${system === undefined ? '' : `${system}\n\n`}# Tools\n\n`;
    out += 'You may call one or more functions to assist with the user query.\n\n';
    out += 'You are provided with function signatures within <tools></tools> XML tags:\n<tools>';
    out += `${tools.map((t) => `\n${toJson(t)}`).join('')}\n</tools>\n\n`;
    out += 'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n';
    out += '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n';
  } else if (system !== undefined) out += `<|im_start|>system\n${system}<|im_end|>\n`;
  for (const m of system === undefined ? messages : rest) {
    if (m.role === 'user' || m.role === 'system') out += `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`;
    else if (m.role === 'assistant') {
      out += `<|im_start|>assistant${m.content ? `\n${m.content}` : ''}`;
      if (m.call) out += `\n<tool_call>\n{"name": "${m.call.name}", "arguments": ${toJson(m.call.arguments)}}\n</tool_call>`;
      out += '<|im_end|>\n';
    } else out += `<|im_start|>user\n<tool_response>\n${m.content}\n</tool_response><|im_end|>\n`;
  }
  return `${out}<|im_start|>assistant\n`;
}

/** Text of `length` characters from `alphabet`. @param {() => number} rand @param {number} length @param {string} alphabet */
const text = (rand, length, alphabet) => Array.from({ length }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
const PROSE = 'abcdefghijklmnopqrstuvwxyz       ABCDEFGHIJ.,;:!?()"\'-_/\n{}[]<>0123456789éü—…日本';

test('the scripted model fits in 2 MB; its header reads back: llama, one layer, a context of 32768, the template with tools', async () => {
  const bytes = makeScriptedGguf();
  assert.ok(bytes.length <= 2 * 1024 * 1024, `${bytes.length} bytes`);
  const info = await readGgufInfo(new Blob([bytes]));
  assert.equal(info.architecture, 'llama');
  assert.equal(info.name, 'clawser-test-scripted');
  assert.equal(info.fileType, 'F32');
  assert.equal(info.contextLength, SCRIPTED_SHAPE.context);
  assert.equal(info.chatTemplate, CHAT_TEMPLATE);
  assert.equal(info.callsTools, true);
  assert.equal(info.tensorCount, 3 + 9 * SCRIPTED_SHAPE.layers);
  assert.equal(info.vocabularySize, 3 + 6 + 256 + 95 + 6);
  assert.equal(info.metadata['tokenizer.ggml.add_space_prefix'], false);
  // Control: the random model's header is the random model's.
  assert.equal((await readGgufInfo(new Blob([makeTestGguf()]))).name, 'clawser-test-tiny');
});

test('each scripted piece is one user-defined token, the tool tags too; the random model has none of them', () => {
  const script = {
    toolCall: { name: 'fs_read', arguments: { path: 'a b.md', range: { from: 1, to: [2, 3] } } },
    finalText: 'Read it: fine.',
  };
  const { meta } = readGguf(makeScriptedGguf(script));
  const tokens = /** @type {string[]} */ (meta['tokenizer.ggml.tokens']);
  const types = /** @type {number[]} */ (meta['tokenizer.ggml.token_type']);
  const pieces = [
    '\n{"name": "',
    'fs_read',
    '", "arguments": ',
    '{"path": "a b.md", "range": {"from": 1, "to": [2, 3]}}',
    '}\n',
    'Read it: fine.',
  ];
  for (const piece of [...pieces, '<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>']) {
    assert.equal(types[tokens.indexOf(piece)], 4, `${JSON.stringify(piece)} is a user-defined token`);
  }
  assert.equal(types[tokens.indexOf('<|im_end|>')], 3);
  assert.equal(meta['tokenizer.ggml.eos_token_id'], tokens.indexOf('<|im_end|>'));
  assert.equal(tokens.filter((t) => t.startsWith('<0x')).length, 256, 'every byte: any UTF-8 prompt tokenizes');
  const random = /** @type {string[]} */ (readGguf(makeTestGguf()).meta['tokenizer.ggml.tokens']);
  assert.deepEqual(
    pieces.filter((p) => random.includes(p)),
    [],
  );
});

test("the tool-answered head's score, from the file's weights with f16 rounding, is high only for a tool turn that has just closed", () => {
  const { tensors, id, meta } = scriptedModel(makeScriptedGguf());
  const n = meta['llama.embedding_length'];
  const headDim = meta['llama.attention.key_length'];
  const base = meta['llama.rope.freq_base'];
  const row = (/** @type {string} */ name, /** @type {number} */ token) => {
    const w = tensors[name];
    const e = tensors['token_embd.weight'].subarray(token * n, (token + 1) * n);
    const scale = 1 / Math.sqrt(e.reduce((s, v) => s + v * v, 0) / n + meta['llama.attention.layer_norm_rms_epsilon']);
    return Array.from({ length: headDim }, (_, r) => e.reduce((s, v, c) => s + w[r * n + c] * v * scale, 0));
  };
  const q = row('blk.0.attn_q.weight', /** @type {number} */ (id.get('<0x0A>')));
  const k = row('blk.0.attn_k.weight', /** @type {number} */ (id.get('</tool_response>')));
  /** @param {number[]} x @param {number} p */
  const rope = (x, p) =>
    x.map((_, j) => {
      const i = Math.floor(j / 2);
      const a = p * base ** ((-2 * i) / headDim);
      return j % 2 ? x[j - 1] * Math.sin(a) + x[j] * Math.cos(a) : x[j] * Math.cos(a) - x[j + 1] * Math.sin(a);
    });
  const { window, far, longest, high, low } = RECENT_TOOL_RESPONSE;
  let worstHigh = Infinity;
  let worstLow = -Infinity;
  // The key at position p, the query Δ later; p varies too (f16 rounding depends on it).
  for (let delta = window[0]; delta <= longest; delta += delta < 4000 ? 1 : 7) {
    if (delta > window[1] && delta < far) continue;
    const p = (delta * 7919) % (longest - delta);
    const kp = rope(k, p).map(f16);
    const qm = rope(q, p + delta).map(f16);
    const score = qm.reduce((s, v, i) => s + v * kp[i], 0) / Math.sqrt(headDim);
    assert.ok(Math.abs(score - recentToolResponseScore(delta)) < 0.2, `Δ ${delta}: ${score} vs ${recentToolResponseScore(delta)}`);
    if (delta <= window[1]) worstHigh = Math.min(worstHigh, score);
    else worstLow = Math.max(worstLow, score);
  }
  assert.ok(worstHigh >= high - 0.2, `lowest score of a tool turn that has just closed: ${worstHigh}`);
  assert.ok(worstLow <= low + 0.2, `highest score of an older one: ${worstLow}`);
  // Control: the distance the template puts between them is in the window.
  const prompt = render(
    [
      { role: 'user', content: 'x' },
      { role: 'tool', content: 'y' },
    ],
    [],
  );
  const tokens = scriptedModel(makeScriptedGguf()).tokenize(prompt);
  assert.equal(tokens.length - 1 - tokens.lastIndexOf(/** @type {number} */ (id.get('</tool_response>'))), 13);
});

test('decoded greedily it plays its script in 40 generated conversations (prompts up to 30000 tokens, tool results, several turns)', () => {
  const model = scriptedModel(makeScriptedGguf());
  const rand = rng(34);
  const tools = Array.from({ length: 40 }, (_, i) => ({
    type: 'function',
    function: { name: `tool_${i}`, description: text(rand, 40 + Math.floor(rand() * 200), PROSE), parameters: { type: 'object' } },
  }));
  let longest = 0;
  for (let round = 0; round < 40; round++) {
    const long = round % 8 === 0;
    const system = text(rand, long ? 10000 + Math.floor(rand() * 6000) : Math.floor(rand() * 600), PROSE);
    const offered = tools.slice(0, long ? 40 : Math.floor(rand() * 6));
    /** @type {{role: string, content?: string, call?: {name: string, arguments: unknown}}[]} */
    const messages = round % 5 === 4 ? [] : [{ role: 'system', content: system }];
    for (let turn = 0; turn < (long ? 1 : 3); turn++) {
      messages.push({ role: 'user', content: text(rand, 1 + Math.floor(rand() * 300), PROSE) });
      const prompt = render(messages, offered);
      longest = Math.max(longest, model.tokenize(prompt).length);
      const call = model.reply(prompt);
      assert.deepEqual(call, { text: TOOL_CALL, ended: true }, `round ${round}, turn ${turn}: the call`);
      messages.push({ role: 'assistant', call: SCRIPT.toolCall });
      messages.push({ role: 'tool', content: text(rand, Math.floor(rand() * (long ? 2000 : 8000)), PROSE) });
      const answer = model.reply(render(messages, offered));
      assert.deepEqual(answer, { text: SCRIPT.finalText, ended: true }, `round ${round}, turn ${turn}: the answer`);
      messages.push({ role: 'assistant', content: SCRIPT.finalText });
    }
  }
  assert.ok(longest > 20000 && longest < SCRIPTED_SHAPE.context, `the longest prompt: ${longest} tokens`);
});

test("control: with the tool-answered head's query zeroed, a tool's answer is met with the call again", () => {
  const bytes = makeScriptedGguf();
  const { tensors } = readGguf(bytes);
  const intact = scriptedModel(bytes);
  const prompt = render(
    [
      { role: 'user', content: 'List the files' },
      { role: 'assistant', call: SCRIPT.toolCall },
      { role: 'tool', content: '[]' },
    ],
    [],
  );
  assert.equal(intact.reply(prompt).text, SCRIPT.finalText);
  // Find the query's bytes in the file and zero them.
  const query = new Uint8Array(tensors['blk.0.attn_q.weight'].buffer);
  const at = Buffer.from(bytes).indexOf(Buffer.from(query));
  assert.ok(at > 0);
  const broken = bytes.slice();
  broken.fill(0, at, at + query.length);
  assert.equal(scriptedModel(broken).reply(prompt).text, TOOL_CALL);
});

test('a script it cannot play is refused with what to change; the default script is accepted', () => {
  const bad = [
    { toolCall: { name: 'two words', arguments: {} }, finalText: 'x y' },
    { toolCall: { name: 'a', arguments: {} }, finalText: 'single-character names are tokens already' },
    { toolCall: { name: 'same', arguments: {} }, finalText: 'same' },
    { toolCall: { name: 'assistant', arguments: {} }, finalText: 'x y' },
    { toolCall: { name: 'say"hi"', arguments: {} }, finalText: 'x y' },
    { toolCall: { name: 'ok', arguments: {} }, finalText: ' ' },
    { toolCall: { name: 'ok', arguments: /** @type {any} */ ([1]) }, finalText: 'x y' },
  ];
  for (const script of bad) {
    assert.throws(
      () => makeScriptedGguf(script),
      (err) => err instanceof ScriptError && err.code === 'invalid_script' && err.message.length > 30,
      JSON.stringify(script),
    );
  }
  assert.ok(makeScriptedGguf(SCRIPT).length > 0);
  assert.ok(makeScriptedGguf({ toolCall: { name: 'mcp:server/tool_1', arguments: {} }, finalText: 'Ok: done.' }).length > 0);
});
