/**
 * The Agent Skills format (agentskills.io/specification): a folder named like the skill, with a
 * `SKILL.md` that opens with YAML frontmatter, followed by Markdown instructions; optional
 * `scripts/`, `references/`, `assets/` and any other files. Pure: parsing and validation, no
 * storage. Every problem names the field and the rule it breaks.
 */
import { parseDocument, isMap, isScalar, isSeq } from 'yaml';

export const NAME_MAX = 64;
export const DESCRIPTION_MAX = 1024;
export const COMPATIBILITY_MAX = 500;
/** The frontmatter fields of the specification; others are kept but warned about. */
export const KNOWN_FIELDS = ['name', 'description', 'license', 'compatibility', 'allowed-tools', 'metadata'];
/** Instructions longer than this (lines) are past the specification's recommendation. */
const BODY_LINES_RECOMMENDED = 500;

/** @typedef {{field: string, message: string}} SkillProblem */

/**
 * @typedef {object} SkillFile
 * @property {string} path relative to the skill's folder
 * @property {number} size bytes
 * @property {boolean} binary not UTF-8 text (a PDF, an archive, an image): kept and listed, not shown
 * @property {'instructions' | 'script' | 'reference' | 'asset' | 'other'} role
 * @property {'javascript' | 'shell' | 'python' | 'other' | null} language scripts only
 */

/**
 * @typedef {object} Skill
 * @property {string} name
 * @property {string} description
 * @property {string} [license]
 * @property {string} [compatibility]
 * @property {string[]} allowedTools the tools its scripts may call (an upper bound); empty: no limit given
 * @property {boolean} allowedToolsGiven the field is present (an empty list then means "none")
 * @property {Record<string, string>} metadata
 * @property {string} body the Markdown instructions after the frontmatter
 * @property {SkillFile[]} files every file, SKILL.md included, sorted by path
 */

/** @typedef {{ok: boolean, errors: SkillProblem[], warnings: SkillProblem[], skill: Skill | null}} SkillValidation */

const decoder = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

/**
 * A file's text, or null when it is not UTF-8 text.
 * @param {string | Uint8Array} data
 */
export function textOf(data) {
  if (typeof data === 'string') return data;
  if (data.includes(0)) return null;
  try {
    return decoder.decode(data);
  } catch {
    return null;
  }
}

/** @param {string | Uint8Array} data */
const sizeOf = (data) => (typeof data === 'string' ? encoder.encode(data).length : data.length);

/**
 * Splits SKILL.md into its frontmatter (YAML text) and body, or says why it cannot.
 * @param {string} text
 * @returns {{yaml: string, body: string, bodyLine: number} | {error: string}}
 */
export function splitFrontmatter(text) {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---') return { error: 'SKILL.md must open with a line "---" that starts the YAML frontmatter.' };
  const end = lines.findIndex((l, i) => i > 0 && l.trimEnd() === '---');
  if (end < 0) return { error: 'The frontmatter is never closed: add a line "---" after its last field.' };
  return {
    yaml: lines.slice(1, end).join('\n'),
    body: lines
      .slice(end + 1)
      .join('\n')
      .replace(/^\s*\n/, ''),
    bodyLine: end + 2,
  };
}

/**
 * Why a skill name breaks the specification, or null. Letters may be any script's (the
 * reference validator's rule), compared after NFKC normalization.
 * @param {string} name
 */
export function nameProblem(name) {
  const n = name.normalize('NFKC');
  if (!n) return 'must not be empty';
  if ([...n].length > NAME_MAX) return `must be at most ${NAME_MAX} characters (it has ${[...n].length})`;
  if (n !== n.toLowerCase()) return 'must be lowercase';
  if (!/^[\p{L}\p{N}-]+$/u.test(n)) return 'may contain only letters, digits and hyphens';
  if (n.startsWith('-') || n.endsWith('-')) return 'must not start or end with a hyphen';
  if (n.includes('--')) return 'must not contain two hyphens in a row';
  return null;
}

/** @param {string} path @returns {SkillFile['role']} */
function roleOf(path) {
  if (path === 'SKILL.md') return 'instructions';
  if (path.startsWith('scripts/')) return 'script';
  if (path.startsWith('references/')) return 'reference';
  if (path.startsWith('assets/')) return 'asset';
  return 'other';
}

/** @param {string} path @returns {SkillFile['language']} */
export function scriptLanguage(path) {
  if (/\.(m?js)$/i.test(path)) return 'javascript';
  if (/\.(sh|bash)$/i.test(path)) return 'shell';
  if (/\.py$/i.test(path)) return 'python';
  return 'other';
}

/**
 * Why a path inside a skill may not be used, or null.
 * @param {string} path
 */
export function pathProblem(path) {
  if (!path || path.startsWith('/') || /^[a-zA-Z]:/.test(path) || path.includes('\\')) return 'must be a relative path with "/" separators';
  if (path.split('/').some((s) => s === '' || s === '.' || s === '..')) return 'must not contain empty, "." or ".." segments';
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'must not contain control characters';
  return null;
}

/**
 * The metadata map: string values as written in the file (so `version: 1.0` stays "1.0").
 * @param {unknown} node @param {SkillProblem[]} errors
 */
function metadataOf(node, errors) {
  /** @type {Record<string, string>} */
  const out = {};
  if (node === null || node === undefined) return out;
  if (!isMap(node)) {
    errors.push({ field: 'metadata', message: 'metadata must be a map of names to text values (e.g. "author: Ada").' });
    return out;
  }
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : null;
    if (key === null) {
      errors.push({ field: 'metadata', message: 'metadata keys must be plain text.' });
      continue;
    }
    if (isScalar(pair.value) && pair.value.value !== null && typeof pair.value.value !== 'object') {
      out[key] = typeof pair.value.value === 'string' ? pair.value.value : String(pair.value.source ?? pair.value.value);
    } else {
      errors.push({
        field: `metadata.${key}`,
        message:
          `metadata.${key} must be a single text value, ` +
          `not ${isMap(pair.value) ? 'a nested map' : isSeq(pair.value) ? 'a list' : 'empty'}.`,
      });
    }
  }
  return out;
}

/**
 * Validates a skill folder against the Agent Skills specification.
 * @param {string} dirName the folder's name (the skill's name must equal it)
 * @param {Record<string, string | Uint8Array> | Map<string, string | Uint8Array>} files relative paths → bytes or text
 * @returns {SkillValidation}
 */
export function validateSkill(dirName, files) {
  /** @type {SkillProblem[]} */
  const errors = [];
  /** @type {SkillProblem[]} */
  const warnings = [];
  const entries = files instanceof Map ? [...files.entries()] : Object.entries(files);
  /** @type {SkillFile[]} */
  const list = [];
  for (const [path, data] of entries) {
    const problem = pathProblem(path);
    if (problem) {
      errors.push({ field: `files/${path}`, message: `The file path "${path}" ${problem}.` });
      continue;
    }
    const role = roleOf(path);
    list.push({ path, size: sizeOf(data), binary: textOf(data) === null, role, language: role === 'script' ? scriptLanguage(path) : null });
  }
  list.sort((a, b) => a.path.localeCompare(b.path));
  const skillMd = entries.find(([p]) => p === 'SKILL.md')?.[1];
  if (skillMd === undefined) {
    const other = entries.find(([p]) => p.toLowerCase() === 'skill.md');
    errors.push({
      field: 'SKILL.md',
      message: other
        ? `The instructions file must be named exactly "SKILL.md" (found "${other[0]}").`
        : 'A skill needs a SKILL.md file at the top of its folder.',
    });
    return { ok: false, errors, warnings, skill: null };
  }
  const text = textOf(skillMd);
  if (text === null) {
    errors.push({ field: 'SKILL.md', message: 'SKILL.md must be UTF-8 text.' });
    return { ok: false, errors, warnings, skill: null };
  }
  const split = splitFrontmatter(text);
  if ('error' in split) {
    errors.push({ field: 'frontmatter', message: split.error });
    return { ok: false, errors, warnings, skill: null };
  }
  const doc = parseDocument(split.yaml, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) {
    const e = doc.errors[0];
    // Lines of SKILL.md: the frontmatter starts on line 2.
    const line = e.pos ? split.yaml.slice(0, e.pos[0]).split('\n').length + 1 : null;
    errors.push({
      field: 'frontmatter',
      message:
        `The frontmatter is not valid YAML${line ? ` (line ${line} of SKILL.md)` : ''}: ` +
        `${e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}`,
    });
    return { ok: false, errors, warnings, skill: null };
  }
  if (!isMap(doc.contents)) {
    errors.push({ field: 'frontmatter', message: 'The frontmatter must be a map of fields ("name: …", "description: …").' });
    return { ok: false, errors, warnings, skill: null };
  }
  const map = doc.contents;
  /** @param {string} key */
  const raw = (key) => map.get(key, true);
  /** @param {string} key @returns {unknown} */
  const value = (key) => {
    const node = raw(key);
    return isScalar(node) ? node.value : node === undefined ? undefined : doc.toJS()[key];
  };
  for (const pair of map.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    if (!KNOWN_FIELDS.includes(key))
      warnings.push({
        field: key,
        message:
          `"${key}" is not a field of the Agent Skills specification; it is kept but not used (put extra information under ` + `metadata).`,
      });
  }

  // name
  const name = value('name');
  if (name === undefined) errors.push({ field: 'name', message: 'name is required.' });
  else if (typeof name !== 'string') errors.push({ field: 'name', message: 'name must be text.' });
  else {
    const problem = nameProblem(name.trim());
    if (problem) errors.push({ field: 'name', message: `name "${name}" ${problem}.` });
    else if (name.trim().normalize('NFKC') !== dirName.normalize('NFKC'))
      errors.push({ field: 'name', message: `name "${name}" must equal the skill's folder name "${dirName}".` });
  }
  // description
  const description = value('description');
  if (description === undefined)
    errors.push({ field: 'description', message: 'description is required: say what the skill does and when to use it.' });
  else if (typeof description !== 'string') errors.push({ field: 'description', message: 'description must be text.' });
  else if (!description.trim()) errors.push({ field: 'description', message: 'description must not be empty.' });
  else if ([...description].length > DESCRIPTION_MAX)
    errors.push({
      field: 'description',
      message: `description must be at most ${DESCRIPTION_MAX} characters (it has ${[...description].length}).`,
    });
  // license
  const license = value('license');
  if (license !== undefined && license !== null && typeof license !== 'string')
    errors.push({ field: 'license', message: 'license must be text (a license name or a file of the skill).' });
  // compatibility
  const compatibility = value('compatibility');
  if (compatibility !== undefined && compatibility !== null) {
    if (typeof compatibility !== 'string') errors.push({ field: 'compatibility', message: 'compatibility must be text.' });
    else if (!compatibility.trim()) errors.push({ field: 'compatibility', message: 'compatibility must not be empty when it is given.' });
    else if ([...compatibility].length > COMPATIBILITY_MAX)
      errors.push({
        field: 'compatibility',
        message: `compatibility must be at most ${COMPATIBILITY_MAX} characters (it has ${[...compatibility].length}).`,
      });
  }
  // allowed-tools: a space-separated string (the specification), or a list (accepted, as the reference validator does)
  const toolsNode = raw('allowed-tools');
  /** @type {string[]} */
  let allowedTools = [];
  if (toolsNode !== undefined && toolsNode !== null) {
    const scalar = isScalar(toolsNode) ? /** @type {unknown} */ (toolsNode.value) : undefined;
    if (typeof scalar === 'string') allowedTools = scalar.split(/\s+/).filter(Boolean);
    else if (isScalar(toolsNode) && scalar === null) allowedTools = [];
    else if (isSeq(toolsNode) && toolsNode.items.every((i) => isScalar(i) && typeof i.value === 'string'))
      allowedTools = toolsNode.items.map((i) => String(/** @type {any} */ (i).value)); // isScalar checked just above
    else
      errors.push({ field: 'allowed-tools', message: 'allowed-tools must be tool names separated by spaces (e.g. "fs_read web_fetch").' });
  }
  const metadata = metadataOf(raw('metadata'), errors);
  if (!split.body.trim()) warnings.push({ field: 'body', message: 'SKILL.md has no instructions after the frontmatter.' });
  else if (split.body.split('\n').length > BODY_LINES_RECOMMENDED)
    warnings.push({
      field: 'body',
      message:
        `SKILL.md has more than ${BODY_LINES_RECOMMENDED} lines of instructions; the specification recommends moving details to ` +
        `references/.`,
    });
  for (const f of list) {
    if (f.role === 'script' && f.language === 'python')
      warnings.push({ field: `files/${f.path}`, message: `${f.path} is Python: it cannot run in the browser; it is shown as text.` });
  }
  const ok = errors.length === 0;
  return {
    ok,
    errors,
    warnings,
    skill: ok
      ? {
          name: /** @type {string} */ (name).trim().normalize('NFKC'),
          description: /** @type {string} */ (description).trim(),
          ...(typeof license === 'string' && license.trim() ? { license: license.trim() } : {}),
          ...(typeof compatibility === 'string' ? { compatibility: compatibility.trim() } : {}),
          allowedTools,
          allowedToolsGiven: toolsNode !== undefined,
          metadata,
          body: split.body,
          files: list,
        }
      : null,
  };
}
