// JSON Schema → GBNF for the local model's tool calls (issue 34 §1). The grammar itself is
// checked by sampling under it in llama.cpp (the browser test and the bench, on the test GGUF);
// these tests pin its shape and the refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GrammarError, jsonSchemaGrammar, toolCallGrammar } from '../../web/providers/local-grammar.js';

/** The body of rule `name` in a grammar. @param {string} grammar @param {string} name */
const rule = (grammar, name) =>
  grammar
    .split('\n')
    .find((l) => l.startsWith(`${name} ::= `))
    ?.slice(name.length + 5);

test("a tool call is one object: a tool name from the list, then that tool's arguments", () => {
  const g = toolCallGrammar([
    { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
    { name: 'noop', parameters: { type: 'object', properties: {} } },
  ]);
  assert.match(rule(g, 'root') ?? '', /"\\"get_weather\\"" ws "," ws "\\"arguments\\"" ws ":" ws get-weather-arguments/);
  assert.match(rule(g, 'root') ?? '', /"\\"noop\\"" ws "," ws "\\"arguments\\"" ws ":" ws noop-arguments/);
  assert.equal(rule(g, 'noop-arguments'), '"{" ws "}"');
  assert.equal(rule(g, 'get-weather-arguments'), '"{" ws "\\"city\\"" ws ":" ws get-weather-city ws  "}"');
  assert.throws(() => toolCallGrammar([]), GrammarError);
});

test('strings are bounded (a runaway string cannot keep the call open), by maxLength or the default', () => {
  assert.equal(rule(jsonSchemaGrammar({ type: 'string' }), 'root'), '"\\"" char{0,200} "\\""');
  assert.equal(rule(jsonSchemaGrammar({ type: 'string', minLength: 2, maxLength: 5 }), 'root'), '"\\"" char{2,5} "\\""');
  assert.equal(rule(jsonSchemaGrammar({ type: 'string' }, { maxString: 9 }), 'root'), '"\\"" char{0,9} "\\""');
  assert.throws(() => jsonSchemaGrammar({ type: 'string', minLength: 5, maxLength: 2 }), GrammarError);
});

test('enums, consts, type lists and anyOf are alternatives of their JSON texts', () => {
  assert.equal(rule(jsonSchemaGrammar({ enum: ['a', 1, null] }), 'root'), '("\\"a\\"" | "1" | "null")');
  assert.equal(rule(jsonSchemaGrammar({ const: 'x' }), 'root'), '"\\"x\\""');
  assert.equal(rule(jsonSchemaGrammar({ type: ['integer', 'null'] }), 'root'), '(integer | null)');
  assert.equal(rule(jsonSchemaGrammar({ anyOf: [{ type: 'boolean' }, { type: 'number' }] }), 'root'), '(boolean | number)');
  assert.throws(() => jsonSchemaGrammar({ enum: [] }), GrammarError);
});

test('arrays keep minItems and maxItems; optional keys may be left out, required ones may not', () => {
  const arr = jsonSchemaGrammar({ type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 3 });
  assert.equal(rule(arr, 'root'), '"[" ws value-item ws ("," ws value-item ws){0,2} "]"');
  assert.equal(rule(jsonSchemaGrammar({ type: 'array', items: { type: 'integer' }, maxItems: 0 }), 'root'), '"[" ws "]"');
  const obj = jsonSchemaGrammar({ type: 'object', properties: { a: { type: 'boolean' }, b: { type: 'null' } }, required: ['b'] });
  assert.equal(rule(obj, 'root'), '"{" ws "\\"b\\"" ws ":" ws value-b ws ("," ws "\\"a\\"" ws ":" ws value-a ws)? "}"');
  assert.throws(() => jsonSchemaGrammar({ type: 'object', properties: {}, required: ['gone'] }), /required "gone"/);
});

test('what the grammar cannot express is refused by name, never loosened', () => {
  for (const key of ['$ref', 'pattern', 'format', 'allOf', 'not']) {
    assert.throws(
      () => jsonSchemaGrammar({ type: 'object', properties: { x: { type: 'string', [key]: 'x' } } }),
      (err) => err instanceof GrammarError && err.message.includes(`"${key}"`),
      key,
    );
  }
  assert.throws(() => jsonSchemaGrammar({}), /type/);
  assert.throws(() => jsonSchemaGrammar(true), /any shape/);
  // Control: the same schema without the keyword converts.
  assert.ok(jsonSchemaGrammar({ type: 'object', properties: { x: { type: 'string' } } }).startsWith('root ::= '));
});

test('every number the grammar allows is finite and every integer safe: two exponent digits, fifteen digits', () => {
  const grammar = jsonSchemaGrammar({ type: 'number' });
  const rule = /** @type {string} */ (grammar.split('\n').find((l) => l.startsWith('number ::=')));
  assert.match(rule, /\[eE\] \[-\+\]\? \[0-9\]\{1,2\}/);
  // The largest such number, sixteen integer digits and fifteen decimals at e+99, is finite (control: e+999 is not).
  assert.ok(Number.isFinite(JSON.parse(`${'9'.repeat(16)}.${'9'.repeat(15)}e+99`)));
  assert.equal(JSON.parse('9e999'), Number.POSITIVE_INFINITY);
  const integer = /** @type {string} */ (grammar.split('\n').find((l) => l.startsWith('integer ::=')));
  assert.match(integer, /\[1-9\] \[0-9\]\{0,14\}/);
  assert.ok(Number.isSafeInteger(Number('9'.repeat(15))));
  assert.ok(!Number.isSafeInteger(Number('9'.repeat(16))), 'control: sixteen digits may not be');
});
