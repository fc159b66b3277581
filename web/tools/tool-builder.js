/** @import { ToolDefinition, ToolContext, ToolFamily } from './types.d.ts' */
import { ToolSpecSchema, describeCapabilities, permissionOf } from './builder/spec.js';

/** The JSON Schema the model sees for tool_define (its arguments are checked in full by ToolSpecSchema). */
const DEFINE_JSON_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Lowercase words joined by single underscores, e.g. "word_count"; not a built-in tool\'s name' },
    description: { type: 'string', description: 'What the tool does and when to use it (what the model will read)' },
    parameters: {
      type: 'object',
      description:
        'JSON Schema of the arguments: {"type":"object","properties":{…},"required":[…]}; property types string, number, integer, ' +
        'boolean, array (items), object; keywords description, enum, minimum, maximum, minLength, maxLength, minItems, maxItems',
    },
    capabilities: {
      type: 'object',
      description: 'What the code may reach; nothing unless declared',
      properties: {
        fetch: { type: 'array', items: { type: 'string' }, description: 'Host names it may fetch from (subdomains too)' },
        readFiles: { type: 'boolean', description: "readFile({path}) and listFiles({path}) over the workspace's files" },
        writeFiles: { type: 'boolean', description: "writeFile({path, content}) in the workspace's files (each write is gated)" },
      },
    },
    code: {
      type: 'string',
      description:
        'The JavaScript body: `args` holds the arguments; top-level await works; `return` (or the last expression) is the result; ' +
        'print() adds output. Declared capabilities are async functions (fetch(url, init) returns a Response).',
    },
    timeoutSeconds: { type: 'integer', minimum: 1, maximum: 300, description: 'Longest one call may run (default 30)' },
  },
  required: ['name', 'description', 'code'],
};

/** @param {ToolContext} ctx */
function builderOf(ctx) {
  if (!ctx.builtTools) throw new Error('The tool builder is not available here.');
  return ctx.builtTools;
}

/** @type {ToolDefinition} */
export const toolDefine = {
  name: 'tool_define',
  description:
    'Define a new tool (or a new version of one defined before) that you can call from your next step on: a name, a ' +
    'description, JSON Schema parameters and a JavaScript body run in a sandbox that reaches only the capabilities declared ' +
    '(fetch to listed hosts, reading or writing workspace files). The user approves the definition before it is registered. ' +
    'Only when a task needs a reusable tool.',
  permission: 'write',
  // A tool outlives the turn and runs in later ones: the taint rule applies.
  standing: true,
  schema: ToolSpecSchema,
  jsonSchema: DEFINE_JSON_SCHEMA,
  preview(args, /** @type {ToolContext} */ ctx) {
    // A name no built tool may take is said before the user is asked (the call is refused either way).
    const spec = ctx.builtTools ? ctx.builtTools.check(args) : ToolSpecSchema.parse(args);
    const params = Object.keys(spec.parameters.properties);
    return [
      `Register the tool ${spec.name} (${permissionOf(spec.capabilities)} permission): ${spec.description}`,
      `It may reach: ${describeCapabilities(spec.capabilities)}.`,
      `Arguments: ${params.length ? params.join(', ') : 'none'}. Longest run: ${spec.timeoutSeconds} s.`,
      'Its code:',
      spec.code,
    ].join('\n');
  },
  async run(args, /** @type {ToolContext} */ ctx) {
    const r = await builderOf(ctx).define(args, 'agent');
    return {
      ok: true,
      output: `${r.created ? 'Registered' : 'Kept'} the tool ${r.name} (version ${r.version}). It can be called from the next step on.`,
    };
  },
};

export const BUILDER_TOOLS = [toolDefine];

/** @type {ToolFamily} */
export const family = { id: 'builder', tools: BUILDER_TOOLS };
