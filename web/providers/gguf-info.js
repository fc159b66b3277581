// What a GGUF model file says about itself (issue 34 §2: the Models list shows name, size,
// quantisation, context length, chat template and whether it calls tools), read from its header
// without loading the weights. Reads a Blob (a File the user picked, or one in OPFS) in slices, so
// a multi-gigabyte file costs only its header. Pure apart from Blob: Node and the page run it alike.
//
// GGUF (versions 2 and 3): "GGUF", version u32, tensor count u64, metadata count u64, then each
// key (u64 length + UTF-8) with a u32 value type and its value, then the tensor descriptions.

/** A file that is not a GGUF model this reader understands, or is cut short. */
export class GgufError extends Error {
  /** @param {'not_gguf' | 'truncated' | 'unsupported_version' | 'invalid'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'GgufError';
    this.code = code;
  }
}

/** llama.cpp's general.file_type values → the quantisation's usual name. */
const FILE_TYPES = /** @type {Record<number, string>} */ ({
  0: 'F32',
  1: 'F16',
  2: 'Q4_0',
  3: 'Q4_1',
  7: 'Q8_0',
  8: 'Q5_0',
  9: 'Q5_1',
  10: 'Q2_K',
  11: 'Q3_K_S',
  12: 'Q3_K_M',
  13: 'Q3_K_L',
  14: 'Q4_K_S',
  15: 'Q4_K_M',
  16: 'Q5_K_S',
  17: 'Q5_K_M',
  18: 'Q6_K',
  19: 'IQ2_XXS',
  20: 'IQ2_XS',
  21: 'Q2_K_S',
  22: 'IQ3_XS',
  23: 'IQ3_XXS',
  24: 'IQ1_S',
  25: 'IQ4_NL',
  26: 'IQ3_S',
  27: 'IQ3_M',
  28: 'IQ2_S',
  29: 'IQ2_M',
  30: 'IQ4_XS',
  31: 'IQ1_M',
  32: 'BF16',
  36: 'TQ1_0',
  37: 'TQ2_0',
  38: 'MXFP4',
});

/** Value types of GGUF metadata, with the byte size of the fixed-size ones. */
const TYPE_SIZE = /** @type {Record<number, number>} */ ({ 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 });
const STRING = 8;
const ARRAY = 9;
/**
 * ggml's tensor types: [bytes per block, values per block] (F32, F16, the Q and IQ quantisations,
 * the integer types, BF16, TQ and MXFP4). A type not listed leaves the data's size unchecked.
 * @type {Record<number, [number, number]>}
 */
const TENSOR_BLOCKS = {
  0: [4, 1],
  1: [2, 1],
  2: [18, 32],
  3: [20, 32],
  6: [22, 32],
  7: [24, 32],
  8: [34, 32],
  9: [36, 32],
  10: [84, 256],
  11: [110, 256],
  12: [144, 256],
  13: [176, 256],
  14: [210, 256],
  15: [292, 256],
  16: [66, 256],
  17: [74, 256],
  18: [98, 256],
  19: [50, 256],
  20: [18, 32],
  21: [110, 256],
  22: [82, 256],
  23: [136, 256],
  24: [1, 1],
  25: [2, 1],
  26: [4, 1],
  27: [8, 1],
  28: [8, 1],
  29: [56, 256],
  30: [2, 1],
  34: [54, 256],
  35: [66, 256],
  39: [17, 32],
};

/** Arrays longer than this are counted, not kept (a vocabulary has 150,000 strings). */
const KEPT_ARRAY = 64;
/** The most a header may take before it is taken for garbage. */
const MAX_HEADER_BYTES = 256 * 1024 * 1024;

/** Reads a Blob front to back in slices. */
class BlobReader {
  /** @type {Uint8Array} */
  #buf = new Uint8Array(0);
  #start = 0; // file offset of #buf[0]
  #pos = 0; // file offset of the next byte to read
  /** @param {Blob} blob @param {number} chunk */
  constructor(blob, chunk = 1 << 20) {
    this.blob = blob;
    this.chunk = chunk;
  }
  get position() {
    return this.#pos;
  }
  /** Makes n bytes from the position available. @param {number} n */
  async #need(n) {
    const end = this.#pos + n;
    if (end <= this.#start + this.#buf.length) return;
    if (end > this.blob.size) throw new GgufError('truncated', 'The model file is cut short: download or copy it again.');
    if (end > MAX_HEADER_BYTES) throw new GgufError('invalid', 'The model file’s header is impossibly large: the file is damaged.');
    const from = this.#pos;
    const bytes = new Uint8Array(await this.blob.slice(from, Math.min(this.blob.size, from + Math.max(n, this.chunk))).arrayBuffer());
    this.#buf = bytes;
    this.#start = from;
  }
  /** @param {number} n */
  async bytes(n) {
    await this.#need(n);
    const at = this.#pos - this.#start;
    this.#pos += n;
    return this.#buf.subarray(at, at + n);
  }
  /** @param {number} n */
  async skip(n) {
    if (this.#pos + n > this.blob.size) throw new GgufError('truncated', 'The model file is cut short: download or copy it again.');
    this.#pos += n; // past the buffer, the next read fetches from there
  }
  async u32() {
    const b = await this.bytes(4);
    return new DataView(b.buffer, b.byteOffset, 4).getUint32(0, true);
  }
  async u64() {
    const b = await this.bytes(8);
    const v = new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new GgufError('invalid', 'The model file holds an impossible length: it is damaged.');
    return Number(v);
  }
  async string() {
    const length = await this.u64();
    if (length > 64 * 1024 * 1024) throw new GgufError('invalid', 'The model file holds an impossibly long text: it is damaged.');
    return new TextDecoder().decode(await this.bytes(length));
  }
  /** One value of a fixed-size type. @param {number} type */
  async scalar(type) {
    const b = await this.bytes(TYPE_SIZE[type]);
    const d = new DataView(b.buffer, b.byteOffset, b.length);
    switch (type) {
      case 0:
        return d.getUint8(0);
      case 1:
        return d.getInt8(0);
      case 2:
        return d.getUint16(0, true);
      case 3:
        return d.getInt16(0, true);
      case 4:
        return d.getUint32(0, true);
      case 5:
        return d.getInt32(0, true);
      case 6:
        return d.getFloat32(0, true);
      case 7:
        return d.getUint8(0) !== 0;
      case 10:
        return Number(d.getBigUint64(0, true));
      case 11:
        return Number(d.getBigInt64(0, true));
      default:
        return d.getFloat64(0, true);
    }
  }
}

/**
 * @param {BlobReader} r @param {number} type
 * @returns {Promise<unknown>} a value; an array over KEPT_ARRAY items is `{length}` only
 */
async function readValue(r, type) {
  if (type === STRING) return r.string();
  if (type in TYPE_SIZE) return r.scalar(type);
  if (type !== ARRAY) throw new GgufError('invalid', `The model file holds a value of unknown type ${type}: it is damaged or too new.`);
  const itemType = await r.u32();
  const length = await r.u64();
  if (length > KEPT_ARRAY) {
    if (itemType in TYPE_SIZE) await r.skip(length * TYPE_SIZE[itemType]);
    else for (let i = 0; i < length; i++) await readValue(r, itemType);
    return { length };
  }
  const items = [];
  for (let i = 0; i < length; i++) items.push(await readValue(r, itemType));
  return items;
}

/**
 * @typedef {{
 *   version: number, architecture: string, name: string | null, fileType: string | null,
 *   contextLength: number | null, kvBytesPerToken: number | null, parameters: number, tensorCount: number,
 *   chatTemplate: string | null, callsTools: boolean, vocabularySize: number | null,
 *   split: {index: number, count: number} | null, dataBytes: number | null, metadata: Record<string, unknown>
 * }} GgufInfo
 *   dataBytes: where the file's last tensor ends (the size it must have at least; null: a tensor type unknown here)
 */

/**
 * The conversation format a chat template writes, by the markers each family uses (what a person
 * compares with a model card: "ChatML", "Llama 3"); "Custom" when it matches none known here.
 * @type {[name: string, marker: RegExp][]}
 */
const TEMPLATE_FAMILIES = [
  ['Harmony (gpt-oss)', /<\|start\|>[\s\S]*<\|message\|>/],
  ['ChatML', /<\|im_start\|>/],
  ['Llama 3', /<\|start_header_id\|>/],
  ['Gemma', /<start_of_turn>/],
  ['Granite', /<\|start_of_role\|>/],
  ['Command R', /<\|START_OF_TURN_TOKEN\|>/],
  ['DeepSeek', /<｜User｜>/],
  ['Phi-3', /<\|user\|>[\s\S]*<\|end\|>/],
  ['Zephyr', /<\|user\|>/],
  ['Mistral / Llama 2', /\[INST\]/],
];

/** @param {string} template a GGUF file's `tokenizer.chat_template` */
export function chatTemplateFamily(template) {
  return TEMPLATE_FAMILIES.find(([, marker]) => marker.test(template))?.[0] ?? 'Custom';
}

/**
 * Reads a GGUF file's header.
 * @param {Blob} file
 * @returns {Promise<GgufInfo>}
 */
export async function readGgufInfo(file) {
  const r = new BlobReader(file);
  if (file.size < 24) throw new GgufError('not_gguf', 'This is not a GGUF model file (it is too small).');
  const magic = new TextDecoder().decode(await r.bytes(4));
  if (magic !== 'GGUF')
    throw new GgufError('not_gguf', 'This is not a GGUF model file: choose a .gguf file (for example from Hugging Face).');
  const version = await r.u32();
  if (version < 2 || version > 3) {
    throw new GgufError('unsupported_version', `This GGUF file is version ${version}; Clawser reads versions 2 and 3.`);
  }
  const tensorCount = await r.u64();
  const metadataCount = await r.u64();
  /** @type {Record<string, unknown>} */
  const metadata = {};
  for (let i = 0; i < metadataCount; i++) {
    const key = await r.string();
    metadata[key] = await readValue(r, await r.u32());
  }
  let parameters = 0;
  /** Where the last tensor's data ends, from the data's start; null when a tensor's type is unknown here. */
  let dataEnd = /** @type {number | null} */ (0);
  for (let i = 0; i < tensorCount; i++) {
    await r.string();
    const dims = await r.u32();
    if (dims > 8) throw new GgufError('invalid', 'The model file describes an impossible tensor: it is damaged.');
    let count = 1;
    for (let d = 0; d < dims; d++) count *= await r.u64();
    parameters += count;
    const type = await r.u32();
    const offset = await r.u64();
    const block = TENSOR_BLOCKS[type];
    if (dataEnd !== null) dataEnd = block ? Math.max(dataEnd, offset + Math.ceil(count / block[1]) * block[0]) : null;
  }
  // A file cut off in its data (a copy or download stopped short) is refused here, not at load.
  const alignment = typeof metadata['general.alignment'] === 'number' ? metadata['general.alignment'] : 32;
  const dataStart = Math.ceil(r.position / alignment) * alignment;
  const dataBytes = dataEnd === null ? null : dataStart + dataEnd;
  if (dataBytes !== null && dataBytes > file.size)
    throw new GgufError('truncated', 'The model file is cut short: download or copy it again.');
  const arch = typeof metadata['general.architecture'] === 'string' ? metadata['general.architecture'] : '';
  if (!arch) throw new GgufError('invalid', 'The model file does not say its architecture: it is not a language model Clawser can run.');
  const num = (/** @type {string} */ key) => (typeof metadata[key] === 'number' ? /** @type {number} */ (metadata[key]) : null);
  const template = typeof metadata['tokenizer.chat_template'] === 'string' ? metadata['tokenizer.chat_template'] : null;
  const tokens = /** @type {unknown} */ (metadata['tokenizer.ggml.tokens']);
  const vocabularySize = Array.isArray(tokens)
    ? tokens.length
    : typeof tokens === 'object' && tokens
      ? Number(/** @type {{length: number}} */ (tokens).length)
      : null;
  const fileType = num('general.file_type');
  // What one token of context costs in memory (the KV cache, f16 keys and values in every layer).
  const layers = num(`${arch}.block_count`);
  const heads = num(`${arch}.attention.head_count`);
  const kvHeads = num(`${arch}.attention.head_count_kv`) ?? heads;
  const width = num(`${arch}.embedding_length`);
  const keyLength = num(`${arch}.attention.key_length`) ?? (width && heads ? width / heads : null);
  const valueLength = num(`${arch}.attention.value_length`) ?? keyLength;
  const kvBytesPerToken = layers && kvHeads && keyLength && valueLength ? layers * kvHeads * (keyLength + valueLength) * 2 : null;
  const splitCount = num('split.count');
  return {
    version,
    architecture: arch,
    name: typeof metadata['general.name'] === 'string' ? metadata['general.name'] : null,
    fileType: fileType === null ? null : (FILE_TYPES[fileType] ?? `type ${fileType}`),
    contextLength: num(`${arch}.context_length`),
    kvBytesPerToken,
    parameters,
    tensorCount,
    chatTemplate: template,
    // A template that reads `tools` renders them for the model: it was trained to call tools.
    callsTools: !!template && /\btools\b/.test(template),
    vocabularySize,
    split: splitCount && splitCount > 1 ? { index: num('split.no') ?? 0, count: splitCount } : null,
    dataBytes,
    metadata,
  };
}
