// JSON Schema → GBNF, the grammar llama.cpp samples under (issue 34 §1): a tool call the local
// model must make comes out as a JSON object that parses and matches its tool's schema, whatever
// the model's chat template. llama.cpp's own converter throws inside the WebAssembly build
// (json_schema / tool_choice 'required' fail with "Failed to initialize samplers"), so the page
// writes the grammar itself and passes it as `grammar`. Pure: no DOM, no storage.
//
// Supported: object (properties, required; no other keys), array (items, minItems, maxItems),
// string (enum, const, minLength, maxLength), integer, number, boolean, null, enum and const of
// any JSON value, anyOf / oneOf, type lists (['string', 'null']). Not supported: $ref, patterns,
// formats, patternProperties; a schema that uses them is refused by name (GrammarError), never
// silently loosened.

/** A schema this converter cannot turn into a grammar. */
export class GrammarError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'GrammarError';
    this.code = 'unsupported_schema';
  }
}

/** @typedef {Record<string, unknown>} Schema */

/** A GBNF string literal of `text`. @param {string} text */
const literal = (text) => JSON.stringify(text).replace(/\\u([0-9a-f]{4})/g, (_, h) => `\\x${h.slice(2)}`);

/** A GBNF literal matching the JSON text of `value`. @param {unknown} value */
const jsonLiteral = (value) => literal(JSON.stringify(value));

const BASE_RULES = [
  'ws ::= [ \\t\\n]{0,2}',
  // A JSON string's character: anything but a quote, a backslash or a control character, or an escape.
  'char ::= [^"\\\\\\x7F\\x00-\\x1F] | "\\\\" (["\\\\/bfnrt] | "u" [0-9a-fA-F]{4})',
  // Fifteen digits at most: every integer it allows is a safe one (a JavaScript number holds it exactly).
  'integer ::= "-"? ("0" | [1-9] [0-9]{0,14})',
  // Two exponent digits: every number it allows is finite (1e999 would parse as Infinity, which no schema's number is).
  'number ::= integer ("." [0-9]{1,15})? ([eE] [-+]? [0-9]{1,2})?',
  'boolean ::= "true" | "false"',
  'null ::= "null"',
];

const UNSUPPORTED = ['$ref', 'pattern', 'format', 'patternProperties', 'if', 'not', 'allOf', 'dependentSchemas'];

/**
 * Builds grammar rules for schemas, naming each rule after where it is in the schema.
 */
class GrammarBuilder {
  /** @type {Map<string, string>} rule name → body */
  rules = new Map();
  /** The longest string a model may write where the schema sets no maxLength (a runaway string never ends the call). */
  maxString;

  /** @param {{maxString?: number}} [options] */
  constructor({ maxString = 200 } = {}) {
    this.maxString = maxString;
  }

  /** A rule name not taken yet, from a path. @param {string} path */
  #name(path) {
    const base =
      path
        .replace(/[^a-zA-Z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .toLowerCase() || 'value';
    let name = base;
    for (let i = 2; this.rules.has(name) || ['root', 'ws', 'char', 'integer', 'number', 'boolean', 'null'].includes(name); i++) {
      name = `${base}-${i}`;
    }
    return name;
  }

  /** Adds a rule; returns its name. @param {string} path @param {string} body */
  add(path, body) {
    const name = this.#name(path);
    this.rules.set(name, body);
    return name;
  }

  /**
   * The grammar expression for a value of `schema`.
   * @param {unknown} schema @param {string} path where it is, for rule names and errors
   * @returns {string}
   */
  value(schema, path) {
    if (schema === true || schema === undefined)
      throw new GrammarError(`${path}: a value of any shape cannot be constrained; give it a type.`);
    if (!schema || typeof schema !== 'object') throw new GrammarError(`${path}: not a schema.`);
    const s = /** @type {Schema} */ (schema);
    for (const key of UNSUPPORTED) {
      if (key in s) throw new GrammarError(`${path}: "${key}" is not supported in a local model's tool schema.`);
    }
    if ('const' in s) return jsonLiteral(s.const);
    if (Array.isArray(s.enum)) {
      if (!s.enum.length) throw new GrammarError(`${path}: an empty enum allows no value.`);
      return `(${s.enum.map(jsonLiteral).join(' | ')})`;
    }
    const alternatives = /** @type {unknown[] | undefined} */ (s.anyOf ?? s.oneOf);
    if (Array.isArray(alternatives)) return `(${alternatives.map((a, i) => this.value(a, `${path}-${i}`)).join(' | ')})`;
    if (Array.isArray(s.type)) return `(${s.type.map((t) => this.value({ ...s, type: t }, `${path}-${t}`)).join(' | ')})`;
    switch (s.type) {
      case 'object':
        return this.#object(s, path);
      case 'array':
        return this.#array(s, path);
      case 'string':
        return this.#string(s);
      case 'integer':
        return 'integer';
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      default:
        throw new GrammarError(`${path}: type ${JSON.stringify(s.type)} is not supported.`);
    }
  }

  /** @param {Schema} s */
  #string(s) {
    const min = Number.isInteger(s.minLength) ? /** @type {number} */ (s.minLength) : 0;
    const max = Number.isInteger(s.maxLength) ? /** @type {number} */ (s.maxLength) : Math.max(min, this.maxString);
    if (max < min) throw new GrammarError(`a string's maxLength ${max} is below its minLength ${min}.`);
    return `"\\"" char{${min},${max}} "\\""`;
  }

  /** @param {Schema} s @param {string} path */
  #array(s, path) {
    const item = this.add(`${path}-item`, this.value(s.items ?? { type: 'string' }, `${path}[]`));
    const min = Number.isInteger(s.minItems) ? /** @type {number} */ (s.minItems) : 0;
    const max = Number.isInteger(s.maxItems) ? /** @type {number} */ (s.maxItems) : undefined;
    if (max !== undefined && max < min) throw new GrammarError(`${path}: maxItems ${max} is below minItems ${min}.`);
    const more = (/** @type {number} */ n) => `("," ws ${item} ws){${n},${max === undefined ? '' : max - 1}}`;
    if (min === 0) {
      if (max === 0) return '"[" ws "]"';
      return `"[" ws (${item} ws ${more(0)})? "]"`;
    }
    return `"[" ws ${item} ws ${more(min - 1)} "]"`;
  }

  /** @param {Schema} s @param {string} path */
  #object(s, path) {
    const properties = /** @type {Record<string, unknown>} */ (s.properties ?? {});
    const required = new Set(/** @type {string[]} */ (Array.isArray(s.required) ? s.required : []));
    for (const name of required) {
      if (!(name in properties)) throw new GrammarError(`${path}: the required "${name}" has no schema.`);
    }
    /** @param {string} name */
    const pair = (name) =>
      `${literal(JSON.stringify(name))} ws ":" ws ${this.add(`${path}-${name}`, this.value(properties[name], `${path}.${name}`))}`;
    const names = Object.keys(properties);
    const must = names.filter((n) => required.has(n)).map(pair);
    const may = names.filter((n) => !required.has(n)).map(pair);
    if (!must.length && !may.length) return '"{" ws "}"';
    // Keys in the schema's order, the required ones first; each optional one may be left out.
    const tail = may.map((p) => `("," ws ${p} ws)?`).join(' ');
    if (must.length) return `"{" ws ${must.join(' "," ws ')} ws ${tail} "}"`;
    // No required key: the first key written is any optional one, the rest follow in order.
    const starts = may.map(
      (p, i) =>
        `${p} ws ${may
          .slice(i + 1)
          .map((q) => `("," ws ${q} ws)?`)
          .join(' ')}`,
    );
    return `"{" ws (${starts.map((x) => `(${x})`).join(' | ')})? "}"`;
  }

  /** The grammar text with `root` first. @param {string} root */
  render(root) {
    return [`root ::= ${root}`, ...[...this.rules].map(([name, body]) => `${name} ::= ${body}`), ...BASE_RULES].join('\n');
  }
}

/**
 * The grammar of one JSON value of `schema`.
 * @param {unknown} schema a JSON Schema (as zod's toJSONSchema or an MCP tool gives it)
 * @param {{maxString?: number}} [options]
 */
export function jsonSchemaGrammar(schema, options) {
  const b = new GrammarBuilder(options);
  return b.render(b.value(schema, 'value'));
}

/**
 * The grammar of one tool call: `{"name": <a tool's name>, "arguments": <that tool's arguments>}`.
 * `orText`: or else a reply in words, which cannot start with `{` (the model may call a tool or
 * answer: 'auto' for a model whose chat template has no tools).
 * @param {{name: string, parameters: unknown}[]} tools the tools it may call (one for a forced choice)
 * @param {{maxString?: number, orText?: boolean}} [options]
 */
export function toolCallGrammar(tools, options = {}) {
  if (!tools.length) throw new GrammarError('A tool call needs at least one tool.');
  const b = new GrammarBuilder(options);
  const calls = tools.map((t) => {
    const args = b.add(`${t.name}-arguments`, b.value(t.parameters ?? { type: 'object', properties: {} }, t.name));
    return `${literal('"name"')} ws ":" ws ${jsonLiteral(t.name)} ws "," ws ${literal('"arguments"')} ws ":" ws ${args}`;
  });
  const call = `"{" ws (${calls.join(' | ')}) ws "}"`;
  if (!options.orText) return b.render(call);
  // Words: not a brace, nor blank, first (a reply never opens like a call).
  const reply = b.add('reply', '[^{ \\t\\n\\x00] [^\\x00]*');
  return b.render(`(${call}) | ${reply}`);
}
