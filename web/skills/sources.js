/**
 * Where skills come from: a ZIP (one skill, or several folders each with a SKILL.md), a folder
 * from the computer (File System Access, or the files of a folder picker), or a URL (a ZIP or
 * a lone SKILL.md). Each yields `{dirName, files, origin}` for SkillStore.install (origin: where
 * it came from, in words: its instructions are outside content); nothing is written here.
 */
import { zipSync } from 'fflate';
import { readZip } from '../files/zip.js';
import { SKILL_LIMITS, SkillError } from './store.js';
import { splitFrontmatter, textOf } from './format.js';
import { offlineExplains, offlineMessage } from '../net/offline.js';

/** @typedef {{dirName: string, files: Map<string, Uint8Array>, refused: {name: string, reason: string}[], origin: string}} SkillSource */

const ZIP_GUARDS = {
  maxEntries: SKILL_LIMITS.maxFiles * 5,
  maxTotalBytes: SKILL_LIMITS.maxTotalBytes,
  maxEntryBytes: SKILL_LIMITS.maxFileBytes,
};

/**
 * The skills in a set of files: every folder holding a SKILL.md (the root's is named after
 * `fallbackName`). Files under a skill's folder go with it; others are left out.
 * @param {{path: string, data: Uint8Array}[]} entries @param {string} fallbackName
 * @returns {(Omit<SkillSource, 'refused' | 'origin'> & {atRoot: boolean})[]}
 */
export function skillsIn(entries, fallbackName) {
  // Finder and Windows add these: never part of a skill.
  const kept = entries.filter((e) => !e.path.split('/').some((s) => s === '__MACOSX' || s === '.DS_Store' || s === 'Thumbs.db'));
  const roots = kept.filter((e) => e.path === 'SKILL.md' || e.path.endsWith('/SKILL.md')).map((e) => e.path.slice(0, -'SKILL.md'.length));
  // A folder inside another skill (e.g. an example in its assets) is part of that skill.
  const skillRoots = roots.filter((r) => !roots.some((o) => o !== r && r.startsWith(o)));
  return skillRoots.map((root) => {
    const files = new Map();
    for (const e of kept) if (e.path.startsWith(root)) files.set(e.path.slice(root.length), e.data);
    const dirName = root ? (root.replace(/\/$/, '').split('/').pop() ?? fallbackName) : fallbackName;
    return { dirName, files, atRoot: root === '' };
  });
}

/**
 * The skill name a lone SKILL.md declares (for a ZIP or URL with the file at its root).
 * @param {Uint8Array | undefined} skillMd
 */
function declaredName(skillMd) {
  const text = skillMd ? textOf(skillMd) : null;
  const split = text ? splitFrontmatter(text) : null;
  if (!split || 'error' in split) return null;
  return /^name:\s*["']?([^"'\n]+?)["']?\s*$/m.exec(split.yaml)?.[1]?.trim() ?? null;
}

/**
 * Skills in a ZIP archive (zip-slip, entry-count and size guards of web/files/zip.js).
 * @param {Uint8Array} bytes @param {string} fileName
 * @returns {SkillSource[]}
 */
export function skillsFromZip(bytes, fileName) {
  const { entries, refused } = readZip(bytes, ZIP_GUARDS);
  const base = fileName
    .replace(/\.zip$/i, '')
    .replace(/[^\p{L}\p{N}-]+/gu, '-')
    .toLowerCase();
  const found = skillsIn(entries, base);
  if (!found.length) throw new SkillError('invalid', `“${fileName}” holds no SKILL.md: it is not an Agent Skills package.`);
  // Only a SKILL.md at the archive's root has no folder to be named after: then the name it declares.
  return found.map(({ atRoot, ...s }) => ({
    ...s,
    dirName: atRoot ? (declaredName(s.files.get('SKILL.md')) ?? base) : s.dirName,
    refused,
    origin: `installed from the ZIP file “${fileName}”`,
  }));
}

/**
 * A folder chosen with File System Access.
 * @param {FileSystemDirectoryHandle} handle
 * @returns {Promise<SkillSource[]>}
 */
export async function skillsFromDirectoryHandle(handle) {
  /** @type {{path: string, data: Uint8Array}[]} */
  const entries = [];
  let total = 0;
  /** @param {FileSystemDirectoryHandle} dir @param {string} prefix */
  const walk = async (dir, prefix) => {
    for await (const [name, h] of /** @type {any} */ (dir).entries()) {
      // entries() is not in TypeScript's DOM types yet
      if (h.kind === 'directory') await walk(h, `${prefix}${name}/`);
      else {
        const file = await h.getFile();
        total += file.size;
        if (total > SKILL_LIMITS.maxTotalBytes || entries.length >= SKILL_LIMITS.maxFiles * 5)
          throw new SkillError(
            'too_large',
            `The folder “${handle.name}” is too large to be a skill (more than ${SKILL_LIMITS.maxTotalBytes / 1048576} MB ` +
              `or ${SKILL_LIMITS.maxFiles * 5} files).`,
          );
        entries.push({ path: `${prefix}${name}`, data: new Uint8Array(await file.arrayBuffer()) });
      }
    }
  };
  await walk(handle, '');
  const found = skillsIn(entries, handle.name);
  if (!found.length) throw new SkillError('invalid', `The folder “${handle.name}” holds no SKILL.md: it is not a skill.`);
  return found.map(({ atRoot: _root, ...s }) => ({
    ...s,
    refused: [],
    origin: `installed from the folder “${handle.name}” on the computer`,
  }));
}

/**
 * The files of a folder picker (`<input type=file webkitdirectory>`), paths relative to the folder.
 * @param {ArrayLike<File>} fileList
 * @returns {Promise<SkillSource[]>}
 */
export async function skillsFromFileList(fileList) {
  const files = Array.from(fileList);
  if (!files.length) return [];
  const top = files[0].webkitRelativePath.split('/')[0] || 'skill';
  let total = 0;
  /** @type {{path: string, data: Uint8Array}[]} */
  const entries = [];
  for (const f of files) {
    total += f.size;
    if (total > SKILL_LIMITS.maxTotalBytes)
      throw new SkillError(
        'too_large',
        `The folder “${top}” is too large to be a skill (more than ${SKILL_LIMITS.maxTotalBytes / 1048576} MB).`,
      );
    const rel = (f.webkitRelativePath || f.name).split('/').slice(1).join('/') || f.name;
    entries.push({ path: rel, data: new Uint8Array(await f.arrayBuffer()) });
  }
  const found = skillsIn(entries, top);
  if (!found.length) throw new SkillError('invalid', `The folder “${top}” holds no SKILL.md: it is not a skill.`);
  return found.map(({ atRoot: _root, ...s }) => ({ ...s, refused: [], origin: `installed from the folder “${top}” on the computer` }));
}

/**
 * A skill from a URL: a ZIP, or a SKILL.md on its own.
 * @param {string} url @param {typeof fetch} [fetchFn] @param {AbortSignal} [signal]
 * @returns {Promise<SkillSource[]>}
 */
export async function skillsFromUrl(url, fetchFn = globalThis.fetch.bind(globalThis), signal) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new SkillError('invalid', `“${url}” is not a web address.`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new SkillError('invalid', 'A skill can be installed from an http(s) address only.');
  let res;
  try {
    res = await fetchFn(parsed.href, { signal, credentials: 'omit' });
  } catch (err) {
    if (/** @type {Error} */ (err).name === 'AbortError') throw err;
    if (offlineExplains(parsed.href)) throw new SkillError('not_found', offlineMessage(parsed.host));
    throw new SkillError(
      'not_found',
      `${parsed.host} could not be reached (offline, or it does not allow browsers to download from it: CORS). Download the skill and ` +
        `install the file instead.`,
    );
  }
  if (!res.ok) throw new SkillError('not_found', `${parsed.href} answered HTTP ${res.status}: no skill there.`);
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > SKILL_LIMITS.maxTotalBytes)
    throw new SkillError(
      'too_large',
      `${parsed.href} is ${Math.ceil(declared / 1048576)} MB; a skill may hold at most ${SKILL_LIMITS.maxTotalBytes / 1048576} MB.`,
    );
  const bytes = new Uint8Array(await res.arrayBuffer());
  const fileName = decodeURIComponent(parsed.pathname.split('/').pop() || 'skill');
  const origin = `downloaded from ${parsed.href}`;
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return skillsFromZip(bytes, fileName).map((s) => ({ ...s, origin }));
  const name = declaredName(bytes);
  if (!name) throw new SkillError('invalid', `${parsed.href} is neither a ZIP nor a SKILL.md with frontmatter.`);
  return [{ dirName: name, files: new Map([['SKILL.md', bytes]]), refused: [], origin }];
}

/**
 * A skill as a ZIP with its folder at the top (what skillsFromZip reads back).
 * @param {string} name @param {Map<string, Uint8Array>} files
 */
export function skillZip(name, files) {
  /** @type {Record<string, Uint8Array>} */
  const out = {};
  for (const [path, data] of files) out[`${name}/${path}`] = data;
  return zipSync(out, { level: 6 });
}
