/** @import { ToolDefinition, ToolFamily, CliVerb } from './types.d.ts' */
import { DEFAULT_POLICY, toJsonSchema } from './registry.js';
import { family as fs } from './fs.js';
import { family as web } from './web.js';
import { family as storage } from './page-storage.js';
import { family as browser } from './browser.js';
import { family as code } from './code.js';
import { family as git } from './git.js';
import { family as memory } from './memory.js';
import { family as goals } from './goals.js';
import { family as scheduler } from './scheduler.js';
import { family as skills } from './skills.js';
import { family as builder } from './tool-builder.js';
import { family as shell } from './shell.js';
import { family as agents } from './agents.js';
import { family as remote } from './remote.js';
import { family as tabs } from './tabs.js';
import { family as hardware } from './hardware.js';
import { family as channels } from './channels.js';

/**
 * Every built-in tool family, in the order their tools are listed (to the model, in the Tools
 * panel, by `clawser tool list`). A new family is its module and its line here: the import above
 * and its name below (CONTRIBUTING.md, "A tool family").
 * @type {readonly ToolFamily[]}
 */
export const TOOL_FAMILIES = Object.freeze([
  fs,
  web,
  storage,
  browser,
  code,
  git,
  memory,
  goals,
  scheduler,
  skills,
  builder,
  shell,
  agents,
  remote,
  tabs,
  hardware,
  channels,
]);

/** A tool family that does not declare what it must (see familyProblems). */
export class ToolFamilyError extends Error {
  /** @param {string[]} problems */
  constructor(problems) {
    super(`A tool family is not as it must be: ${problems.join('; ')}.`);
    this.name = 'ToolFamilyError';
    this.code = 'invalid_tool_family';
    this.problems = problems;
  }
}

const FAMILY_ID = /^[a-z][a-z0-9_-]*$/;
const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
const VERB = /^[a-z][a-z-]* [a-z][a-z-]*$/;
const FLAG = /^--?[a-z][a-z0-9-]*$/;

/** @param {unknown} value */
const isText = (value) => typeof value === 'string' && value.length > 0;

/**
 * A family's tools (made once when it makes them per registry), or why they cannot be had.
 * @param {ToolFamily} family @returns {{tools: ToolDefinition[], problem?: string}}
 */
function toolsOf(family) {
  const where = `the family ${isText(family?.id) ? family.id : '(no id)'}`;
  const listed = family?.tools !== undefined;
  const made = family?.create !== undefined;
  if (!listed && !made) return { tools: [], problem: `${where} declares no tools (or create)` };
  if (listed && made) return { tools: [], problem: `${where} declares both tools and create: one of them` };
  if (listed) return Array.isArray(family.tools) ? { tools: family.tools } : { tools: [], problem: `${where}: tools is not a list` };
  if (typeof family.create !== 'function') return { tools: [], problem: `${where}: create is not a function` };
  try {
    const tools = family.create();
    return Array.isArray(tools) ? { tools } : { tools: [], problem: `${where}: create() returned no list` };
  } catch (err) {
    return { tools: [], problem: `${where}: create() failed: ${/** @type {Error} */ (err).message}` };
  }
}

/**
 * What a registry entry must declare, each a problem when missing (familyProblems):
 * CONTRIBUTING.md, "A tool family", lists the same (tests/unit/contributing.test.mjs).
 */
export const MUST_DECLARE = Object.freeze({
  family: Object.freeze(['id', 'tools']),
  tool: Object.freeze(['name', 'description', 'permission', 'schema', 'run']),
  verb: Object.freeze(['verb', 'tool', 'usage']),
});

/** @param {ToolDefinition} tool @param {string} where @returns {string[]} */
function toolProblems(tool, where) {
  if (!tool || typeof tool !== 'object') return [`${where}: a tool is not an object`];
  const name = isText(tool.name) ? tool.name : null;
  const at = `${where}, tool ${name ?? '(no name)'},`;
  /** @type {string[]} */
  const problems = [];
  if (tool.name === undefined) problems.push(`${at} declares no name`);
  else if (!TOOL_NAME.test(String(tool.name))) problems.push(`${at} its name is not a lowercase identifier`);
  if (!isText(tool.description)) problems.push(`${at} declares no description (what the model reads)`);
  if (tool.permission === undefined) problems.push(`${at} declares no permission`);
  else if (!Object.hasOwn(DEFAULT_POLICY, tool.permission)) {
    problems.push(`${at} its permission "${tool.permission}" is none of ${Object.keys(DEFAULT_POLICY).join(', ')}`);
  }
  if (typeof tool.schema?.safeParse !== 'function') problems.push(`${at} declares no schema (a zod schema of its arguments)`);
  if (typeof tool.run !== 'function') problems.push(`${at} declares no run`);
  // The gate that matters most: only a tool that reads may be run by a read-only shell line.
  if (tool.readOnly !== undefined && typeof tool.readOnly !== 'boolean') problems.push(`${at} readOnly is not true or false`);
  if (tool.readOnly === true && tool.permission !== 'read') {
    problems.push(`${at} is declared read-only but its permission is "${tool.permission}": only a "read" tool may be`);
  }
  return problems;
}

/** The argument names of a schema, found once (a registry is made per workspace, and checks its families). */
/** @type {WeakMap<object, string[]>} */
const argumentNames = new WeakMap();

/** The argument names a tool's schema has (its JSON Schema's properties). @param {ToolDefinition} tool */
function argumentsOf(tool) {
  if (!tool.schema || typeof tool.schema !== 'object') return [];
  let names = argumentNames.get(tool.schema);
  if (!names) {
    try {
      names = Object.keys(/** @type {{properties?: object}} */ (toJsonSchema(tool.schema)).properties ?? {});
    } catch {
      names = [];
    }
    argumentNames.set(tool.schema, names);
  }
  return names;
}

/** @param {CliVerb} spec @param {ToolDefinition[]} tools @param {string} where @returns {string[]} */
function verbProblems(spec, tools, where) {
  if (!spec || typeof spec !== 'object') return [`${where}: a clawser verb is not an object`];
  const at = `${where}, clawser verb ${isText(spec.verb) ? spec.verb : '(no verb)'},`;
  /** @type {string[]} */
  const problems = [];
  if (spec.verb === undefined) problems.push(`${at} declares no verb ("area action")`);
  else if (!VERB.test(String(spec.verb))) problems.push(`${at} is not "area action" (two lowercase words)`);
  if (typeof spec.usage !== 'string') problems.push(`${at} declares no usage (what clawser help shows; '' for nothing)`);
  if (spec.usageError !== undefined && !isText(spec.usageError)) problems.push(`${at} its usageError is not text`);
  const tool = tools.find((t) => t?.name === spec.tool);
  if (spec.tool === undefined) problems.push(`${at} declares no tool`);
  else if (!tool) problems.push(`${at} calls ${String(spec.tool)}, which is not a tool of this family`);
  if (!tool) return problems;
  const known = argumentsOf(tool);
  /** @param {string} name @param {string} what */
  const unknown = (name, what) => {
    if (!known.includes(name)) problems.push(`${at} ${what} "${name}" is not an argument of ${tool.name} (${known.join(', ') || 'none'})`);
  };
  const names = spec.args;
  if (names !== undefined) {
    if (!Array.isArray(names) || !names.every(isText)) problems.push(`${at} its args are not a list of names`);
    else
      names.forEach((name, i) => {
        if (name.endsWith('...') && i !== names.length - 1) problems.push(`${at} only its last argument may take the rest ("${name}")`);
        unknown(name.replace(/\.\.\.$/, ''), 'the argument');
      });
  }
  if (spec.options !== undefined) {
    if (!spec.options || typeof spec.options !== 'object') problems.push(`${at} its options are not an object`);
    else
      for (const [name, flags] of Object.entries(spec.options)) {
        const flagged = Array.isArray(flags) && flags.length > 0 && flags.every((f) => FLAG.test(f));
        if (!flagged) problems.push(`${at} the option "${name}" has no flags such as --${name}`);
        unknown(name, 'the option');
      }
  }
  if (spec.fixed !== undefined) {
    if (!spec.fixed || typeof spec.fixed !== 'object') problems.push(`${at} fixed is not an object`);
    else for (const name of Object.keys(spec.fixed)) unknown(name, 'the fixed argument');
  }
  return problems;
}

/**
 * What a family fails to declare, or declares wrong, in words; [] when it is complete. A family
 * declares its `id` and its `tools` (or `create`); each tool its `name`, `description`,
 * `permission`, `schema` and `run` (and `readOnly` only with permission "read"); each `clawser`
 * verb its `verb`, `tool` (one of the family's) and `usage`, and only arguments its tool takes.
 * @param {ToolFamily} family @returns {string[]}
 */
export function familyProblems(family) {
  return problemsOf(family, toolsOf(family));
}

/** @param {ToolFamily} family @param {{tools: ToolDefinition[], problem?: string}} made */
function problemsOf(family, made) {
  if (!family || typeof family !== 'object') return ['a family is not an object'];
  /** @type {string[]} */
  const problems = [];
  if (family.id === undefined) problems.push('a family declares no id');
  else if (!isText(family.id) || !FAMILY_ID.test(family.id)) problems.push(`the family id "${String(family.id)}" is not a lowercase word`);
  const where = `the family ${isText(family.id) ? family.id : '(no id)'}`;
  if (made.problem) problems.push(made.problem);
  for (const tool of made.tools) problems.push(...toolProblems(tool, where));
  if (family.cli !== undefined) {
    if (!Array.isArray(family.cli)) problems.push(`${where}: cli is not a list of verbs`);
    else for (const spec of family.cli) problems.push(...verbProblems(spec, made.tools, where));
  }
  return problems;
}

/**
 * The families' tools, in order, after checking every family (and that no two share an id, a
 * tool name or a verb). A family that makes its tools per registry makes them here.
 * @param {readonly ToolFamily[]} [families]
 * @returns {{family: ToolFamily, tools: ToolDefinition[]}[]}
 * @throws {ToolFamilyError}
 */
export function checkedFamilies(families = TOOL_FAMILIES) {
  const all = families.map((family) => ({ family, made: toolsOf(family) }));
  const problems = all.flatMap(({ family, made }) => problemsOf(family, made));
  /** @param {string[]} names @param {string} what */
  const twice = (names, what) => {
    for (const name of new Set(names.filter((n, i) => names.indexOf(n) !== i))) problems.push(`${what} "${name}" is declared twice`);
  };
  twice(
    families.map((f) => f?.id),
    'the family id',
  );
  twice(
    all.flatMap(({ made }) => made.tools.map((t) => t?.name)),
    'the tool',
  );
  twice(
    families.flatMap((f) => (Array.isArray(f?.cli) ? f.cli.map((v) => v?.verb) : [])),
    'the clawser verb',
  );
  if (problems.length) throw new ToolFamilyError(problems);
  return all.map(({ family, made }) => ({ family, tools: made.tools }));
}

/** @param {readonly ToolFamily[]} [families] @returns {ToolDefinition[]} */
export function familyTools(families = TOOL_FAMILIES) {
  return checkedFamilies(families).flatMap((f) => f.tools);
}

/**
 * Whether a tool only reads: its permission is "read" and it declares `readOnly`. Only such a tool
 * runs from a read-only shell line, and only its `clawser` verbs are read-only commands.
 * @param {ToolDefinition} tool
 */
export function onlyReads(tool) {
  return tool.permission === 'read' && tool.readOnly === true;
}

/** The tools of the families that only read (onlyReads). @param {readonly ToolFamily[]} [families] */
export function readOnlyTools(families = TOOL_FAMILIES) {
  return familyTools(families)
    .filter(onlyReads)
    .map((t) => t.name);
}
