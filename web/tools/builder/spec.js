/**
 * The tool builder's pure parts: what a built tool's definition may be (checked with zod, its
 * JSON Schema of parameters too), which names it may take, the arguments' zod schema made from
 * that JSON Schema, its identity (a digest of what the user approved), and how its versions are
 * kept as the files of a workspace skill. No storage, no sandbox: web/tools/builder/store.js
 * and web/tools/builder/sandboxed.js use these.
 */
import { z } from 'zod';

/** The most properties an object of a built tool's parameters may have, and how deep they may nest. */
export const PARAMS_LIMITS = { maxProperties: 50, maxDepth: 5, maxEnum: 100 };

/** A built tool's code: at most this many characters. */
export const MAX_CODE_CHARS = 100_000;

/** The prefix of a built tool's skill folder (`tool-<name with dashes>`). */
export const SKILL_PREFIX = 'tool-';

/** The frontmatter metadata key that marks a skill as a built tool's. */
export const TOOL_METADATA_KEY = 'clawser-tool';

/** The identity prefix of a built tool's stored choices (`built:<name>:<digest>`): never a valid tool name. */
export const KEY_PREFIX = 'built:';

/**
 * A name the builder refuses, with why: a lowercase identifier of words joined by single
 * underscores (so it is a skill's name with dashes, and never an MCP tool's `mcp__server__tool`).
 */
const NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** A definition the builder cannot take, with every problem in words. */
export class ToolDefinitionError extends Error {
  /** @param {'invalid' | 'name_taken' | 'not_found' | 'not_approved' | 'unavailable'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'ToolDefinitionError';
    this.code = code;
  }
}

const Description = z.string().trim().max(1024).optional();

/**
 * One parameter's JSON Schema: the subset the builder accepts (strict: an unknown keyword is
 * refused, so what the model and the user see is what is checked).
 * @type {z.ZodType<any>} (recursive: any, its shape is the union below)
 */
const Property = z.lazy(() =>
  z.discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('string'),
      description: Description,
      enum: z.array(z.string().max(200)).min(1).max(PARAMS_LIMITS.maxEnum).optional(),
      minLength: z.number().int().min(0).optional(),
      maxLength: z.number().int().min(0).optional(),
    }),
    z.strictObject({
      type: z.literal('number'),
      description: Description,
      minimum: z.number().optional(),
      maximum: z.number().optional(),
    }),
    z.strictObject({
      type: z.literal('integer'),
      description: Description,
      minimum: z.number().int().optional(),
      maximum: z.number().int().optional(),
    }),
    z.strictObject({ type: z.literal('boolean'), description: Description }),
    z.strictObject({
      type: z.literal('array'),
      description: Description,
      items: Property,
      minItems: z.number().int().min(0).optional(),
      maxItems: z.number().int().min(0).optional(),
    }),
    ObjectSchema,
  ]),
);

/** An object's JSON Schema: its properties, which are required, whether others are refused. */
const ObjectSchema = z
  .strictObject({
    type: z.literal('object'),
    description: Description,
    properties: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a property name is a letter or _ then letters, digits or _'), Property)
      .default({}),
    required: z.array(z.string()).optional(),
    additionalProperties: z.boolean().optional(),
  })
  .superRefine((o, ctx) => {
    const names = Object.keys(o.properties);
    if (names.length > PARAMS_LIMITS.maxProperties)
      ctx.addIssue({ code: 'custom', message: `an object may have at most ${PARAMS_LIMITS.maxProperties} properties` });
    for (const r of o.required ?? [])
      if (!names.includes(r)) ctx.addIssue({ code: 'custom', path: ['required'], message: `"${r}" is required but not a property` });
  });

/** The parameters of a built tool: an object's JSON Schema (the subset above), at most PARAMS_LIMITS.maxDepth deep. */
export const ParametersSchema = ObjectSchema.superRefine((o, ctx) => {
  if (depthOf(o) > PARAMS_LIMITS.maxDepth)
    ctx.addIssue({ code: 'custom', message: `the parameters nest more than ${PARAMS_LIMITS.maxDepth} levels deep` });
});

/** @param {any} schema a validated JSON Schema of the subset @returns {number} */
function depthOf(schema) {
  if (schema.type === 'object') return 1 + Math.max(0, ...Object.values(schema.properties ?? {}).map(depthOf));
  if (schema.type === 'array') return 1 + depthOf(schema.items);
  return 1;
}

/** A host name's labels (an optional leading `*.`): letters, digits and inner dashes. */
const LABEL = String.raw`[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?`;
const HOST = new RegExp(String.raw`^(?:\*\.)?${LABEL}(?:\.${LABEL})*$`);

/** A host a built tool may fetch from: a hostname (its subdomains too), no scheme, path or port. */
const Host = z.string().trim().toLowerCase().regex(HOST, 'a host name such as api.example.com');

/** What a built tool's code may reach beyond its own computation; nothing unless declared. */
export const CapabilitiesSchema = z.strictObject({
  fetch: z.array(Host).max(20).default([]).describe('Hosts the code may fetch from (their subdomains too); empty: no network'),
  readFiles: z.boolean().default(false).describe("The code may read the workspace's files (readFile, listFiles)"),
  writeFiles: z
    .boolean()
    .default(false)
    .describe("The code may write the workspace's files (writeFile), each write through fs_write's gates"),
});

/** A built tool's name (see NAME). */
export const ToolNameSchema = z
  .string()
  .max(64)
  .regex(NAME, 'a lowercase name of letters and digits in words joined by single underscores, e.g. "word_count"');

/** What a built tool is: the definition the agent or the user gives, as it is saved and approved. */
export const ToolSpecSchema = z.strictObject({
  name: ToolNameSchema,
  description: z.string().trim().min(1).max(1024),
  parameters: ParametersSchema.default({ type: 'object', properties: {} }),
  capabilities: CapabilitiesSchema.default({ fetch: [], readFiles: false, writeFiles: false }),
  code: z.string().min(1).max(MAX_CODE_CHARS),
  timeoutSeconds: z.number().int().min(1).max(300).default(30),
});

/** @typedef {z.output<typeof ToolSpecSchema>} ToolSpec */

/** A version as it is kept: the definition, its number and when it was made. */
export const ToolVersionSchema = z.strictObject({
  version: z.number().int().min(1),
  createdAt: z.number().int().min(0),
  by: z.enum(['agent', 'user']),
  spec: ToolSpecSchema,
});

/** @typedef {z.output<typeof ToolVersionSchema>} ToolVersion */

/**
 * A definition checked: the spec, or every problem in words (field: message).
 * @param {unknown} input
 * @returns {{ok: true, spec: ToolSpec} | {ok: false, error: string}}
 */
export function parseSpec(input) {
  const r = ToolSpecSchema.safeParse(input);
  if (r.success) return { ok: true, spec: r.data };
  return {
    ok: false,
    error: r.error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'definition'}: ${i.message}`).join('; '),
  };
}

/**
 * Why a built tool may not take `name`, or null: it must be a valid name, not a tool that is
 * not a built tool (a built-in, an MCP server's: no shadowing), not shaped like an MCP tool's.
 * @param {string} name
 * @param {(name: string) => 'builtin' | 'mcp' | 'built' | null} holder who holds the name in the registry now
 * @returns {string | null}
 */
export function nameProblem(name, holder) {
  const r = ToolNameSchema.safeParse(name);
  if (!r.success) return `"${name}" is not a tool name: ${r.error.issues[0]?.message ?? 'invalid'}.`;
  if (name.startsWith('mcp')) return `"${name}" starts like an MCP server's tool; choose another name.`;
  const held = holder(name);
  if (held === 'builtin') return `"${name}" is a built-in tool of Clawser; a built tool cannot take or shadow it. Choose another name.`;
  if (held === 'mcp') return `"${name}" is an MCP server's tool; a built tool cannot take or shadow it. Choose another name.`;
  return null;
}

/** The skill folder (and skill name) a built tool is kept in. @param {string} name */
export const skillNameOf = (name) => `${SKILL_PREFIX}${name.replace(/_/g, '-')}`;

/** The canonical text of a spec (its keys in one order), what its digest is taken of. @param {ToolSpec} spec */
export function canonicalSpec(spec) {
  /** @param {unknown} v @returns {unknown} */
  const sort = (v) =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort(/** @type {Record<string, unknown>} */ (v)[k])]),
          )
        : v;
  return JSON.stringify(sort(spec));
}

/**
 * The identity of a definition: SHA-256 of its canonical text, in hex. What the user approved
 * is this digest; a file changed since (by hand, a checkout, an import) is another tool.
 * @param {ToolSpec} spec @returns {Promise<string>}
 */
export async function specDigest(spec) {
  const bytes = new TextEncoder().encode(canonicalSpec(spec));
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return [...hash].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The key a built tool's choices are stored under: its name and the identity of its definition.
 * @param {string} name @param {string} digest
 */
export const policyKeyOf = (name, digest) => `${KEY_PREFIX}${name}:${digest.slice(0, 16)}`;

/** Whether a stored choice's key is one of a built tool's (any version). @param {string} key @param {string} name */
export const isKeyOf = (key, name) => key.startsWith(`${KEY_PREFIX}${name}:`);

/**
 * The permission a built tool's calls have, from what it declares: writing files is a write,
 * fetching is network, otherwise a read (its code computes and, when declared, reads files).
 * @param {ToolSpec['capabilities']} c @returns {'read' | 'network' | 'write'}
 */
export function permissionOf(c) {
  if (c.writeFiles) return 'write';
  if (c.fetch.length) return 'network';
  return 'read';
}

/** What a built tool may reach, in words (the approval dialog, the Tools panel). @param {ToolSpec['capabilities']} c */
export function describeCapabilities(c) {
  const parts = [];
  if (c.fetch.length) parts.push(`fetch from ${c.fetch.join(', ')} (and their subdomains)`);
  if (c.readFiles) parts.push("read the workspace's files");
  if (c.writeFiles) parts.push("write the workspace's files (each write asks as fs_write does)");
  return parts.length ? parts.join('; ') : 'nothing outside its sandbox (no network, no files)';
}

/**
 * The zod schema that checks a built tool's arguments, made from its JSON Schema.
 * @param {any} schema a validated JSON Schema of the subset (ParametersSchema's output)
 * @returns {z.ZodType}
 */
export function argumentsSchema(schema) {
  switch (schema.type) {
    case 'string': {
      if (schema.enum) return z.enum(/** @type {[string, ...string[]]} */ (schema.enum));
      let s = z.string();
      if (schema.minLength !== undefined) s = s.min(schema.minLength);
      if (schema.maxLength !== undefined) s = s.max(schema.maxLength);
      return s;
    }
    case 'number':
    case 'integer': {
      let n = schema.type === 'integer' ? z.number().int() : z.number();
      if (schema.minimum !== undefined) n = n.min(schema.minimum);
      if (schema.maximum !== undefined) n = n.max(schema.maximum);
      return n;
    }
    case 'boolean':
      return z.boolean();
    case 'array': {
      let a = z.array(argumentsSchema(schema.items));
      if (schema.minItems !== undefined) a = a.min(schema.minItems);
      if (schema.maxItems !== undefined) a = a.max(schema.maxItems);
      return a;
    }
    default: {
      const required = new Set(schema.required ?? []);
      /** @type {Record<string, z.ZodType>} */
      const shape = {};
      for (const [k, v] of Object.entries(schema.properties ?? {})) {
        const p = argumentsSchema(v);
        shape[k] = required.has(k) ? p : p.optional();
      }
      return schema.additionalProperties === false ? z.strictObject(shape) : z.object(shape);
    }
  }
}

/**
 * The text of SKILL.md for a built tool: Agent Skills frontmatter (its metadata names the tool
 * and its version) and what the tool is, for a person reading the skill.
 * @param {ToolSpec} spec @param {number} version
 */
export function skillMarkdown(spec, version) {
  const description = `A tool built in Clawser: ${spec.description}`.replace(/\s+/g, ' ').slice(0, 1000);
  return [
    '---',
    `name: ${skillNameOf(spec.name)}`,
    `description: ${JSON.stringify(description)}`,
    // Its script is not a skill script: nothing may run it with tools.
    'allowed-tools: ""',
    'metadata:',
    `  ${TOOL_METADATA_KEY}: ${spec.name}`,
    `  ${TOOL_METADATA_KEY}-version: "${version}"`,
    '---',
    '',
    `# The tool \`${spec.name}\``,
    '',
    spec.description,
    '',
    `It may reach: ${describeCapabilities(spec.capabilities)}.`,
    '',
    "Made with Clawser's tool builder. `tool.json` is its current definition (its JavaScript is `tool.js`); `versions/` keeps " +
      'every version. It is registered in a workspace only once the user approves that exact definition.',
    '',
  ].join('\n');
}

/**
 * The files of a built tool's skill after a new version: SKILL.md, tool.json (the current
 * definition), tool.js (its code, to read) and every version under versions/.
 * @param {ToolVersion} current @param {ToolVersion[]} earlier the versions kept before it
 * @returns {Map<string, string>}
 */
export function skillFiles(current, earlier) {
  /** @type {Map<string, string>} */
  const files = new Map();
  files.set('SKILL.md', skillMarkdown(current.spec, current.version));
  files.set('tool.json', `${JSON.stringify(current, null, 2)}\n`);
  files.set('tool.js', current.spec.code.endsWith('\n') ? current.spec.code : `${current.spec.code}\n`);
  for (const v of [...earlier, current]) files.set(`versions/${v.version}.json`, `${JSON.stringify(v, null, 2)}\n`);
  return files;
}

/**
 * The versions a built tool's skill holds (its files' text by path), oldest first, and the
 * current one (tool.json); a version file that does not parse is left out with a problem.
 * @param {Map<string, string | null>} files path → text (null: not text)
 * @returns {{current: ToolVersion | null, versions: ToolVersion[], problems: string[]}}
 */
export function readSkillVersions(files) {
  /** @type {string[]} */
  const problems = [];
  /** @param {string} path */
  const parse = (path) => {
    const text = files.get(path);
    if (typeof text !== 'string') return null;
    try {
      const r = ToolVersionSchema.safeParse(JSON.parse(text));
      if (r.success) return r.data;
      problems.push(`${path}: ${r.error.issues.map((i) => `${i.path.join('.') || 'definition'}: ${i.message}`).join('; ')}`);
    } catch (err) {
      problems.push(`${path}: not JSON (${/** @type {Error} */ (err).message})`);
    }
    return null;
  };
  const current = parse('tool.json');
  /** @type {ToolVersion[]} */
  const versions = [];
  for (const path of files.keys()) {
    const m = /^versions\/(\d+)\.json$/.exec(path);
    if (!m) continue;
    const v = parse(path);
    if (v && v.version === Number(m[1])) versions.push(v);
    else if (v) problems.push(`${path}: it says it is version ${v.version}`);
  }
  versions.sort((a, b) => a.version - b.version);
  return { current, versions, problems };
}

/** The next version's number. @param {ToolVersion[]} versions @param {ToolVersion | null} current */
export const nextVersion = (versions, current) => Math.max(0, current?.version ?? 0, ...versions.map((v) => v.version)) + 1;
