// The vendored shell interpreter's patches (scripts/vendor.mjs applies them to just-bash's
// browser build; tests/fixtures/vendored-interpreter.mjs runs that build in Node). Each fails
// the build loudly when the code it patches is not found, e.g. after an update.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * just-bash turns bytes into its "byte strings" (one char per byte) a character at a time
 * (`s += String.fromCharCode(b[i])`), at every pipe and file read: the main cost of a pipeline
 * over megabytes in the page. The same strings are built from 32 KB slices instead.
 * @param {string} source @param {string} path
 */
function patchByteStrings(source, path) {
  const loop = /for\(let (\w+)=0;\1<(\w+)\.length;\1\+\+\)(\w+)\+=String\.fromCharCode\(\2\[\1\]\);return \3/g;
  const helper = 'function __clawserLatin1(b){const p=[];for(let i=0;i<b.length;i+=32768)p.push(String.fromCharCode.apply(null,b.subarray(i,i+32768)));return p.join("")}\n';
  const found = source.match(loop)?.length ?? 0;
  if (found !== 2) throw new Error(`just-bash's byte-string loops changed (${found} found); update patchByteStrings in scripts/vendor.mjs (${path})`);
  return helper + source.replace(loop, 'return $3+__clawserLatin1($2)');
}

/** Kept in the vendored file (a legal comment survives minifying): tests check the build is current. */
export const GLOB_PATCH_MARK = 'clawser: globs ending in / name folders; matches collate by the locale (issue 32)';

/**
 * Globs as bash expands them (issue 32 §8), which no command can change: a pattern ending in `/`
 * (`*\/`, `notes/*\/`) names the folders it matches, each with its slash (just-bash matched files
 * too and dropped the slash), and matches are ordered by the locale of the environment like
 * `sort` and `ls` (web/shell/commands/collate.js, bundled in: LC_ALL=C is byte order, just-bash's
 * only order). The glob expander keeps the environment it is given; its sorts go through it.
 * @param {string} source @param {string} path
 */
function patchGlobs(source, path) {
  const ctor = /constructor\((\w+),(\w+),(\w+),(\w+)\)\{this\.fs=\1,this\.cwd=\2,typeof \4=="boolean"/;
  const simple = /(async expandSimple\((\w+)\)\{[^]{0,600}?)return\(await this\.expandSegments\((\w+),(\w+),(\w+)\)\)\.sort\(\)\}/;
  const recursive = /(async expandRecursive\(\w+\)\{[^]{0,300}?)\[\.\.\.new Set\((\w+)\)\]\.sort\(\)\):\(await this\.walkDirectory\((\w+),(\w+),(\w+)\),(\w+)\.sort\(\)\)\}/;
  for (const [name, re] of /** @type {const} */ ([['constructor', ctor], ['expandSimple', simple], ['expandRecursive', recursive]])) {
    if ((source.match(new RegExp(re.source, 'g'))?.length ?? 0) !== 1) throw new Error(`just-bash's glob expander changed (${name}); update patchGlobs in scripts/vendor.mjs (${path})`);
  }
  const collate = JSON.stringify(join(root, 'web', 'shell', 'commands', 'collate.js'));
  const helper = [
    `/*! ${GLOB_PATCH_MARK} */`,
    `import { collationOf as __clawserCollationOf } from ${collate};`,
    'function __clawserGlobOrder(g,list){return list.sort(__clawserCollationOf(g.__clawserEnv instanceof Map?g.__clawserEnv:new Map()).compare)}',
    'async function __clawserGlob(g,pattern,found){if(!pattern.endsWith("/"))return __clawserGlobOrder(g,found);const dirs=await Promise.all(found.map(async p=>{try{return(await g.fs.stat(g.fs.resolvePath(g.cwd,p))).isDirectory}catch{return false}}));return __clawserGlobOrder(g,found.filter((_,i)=>dirs[i]).map(p=>`${p}/`))}',
    '',
  ].join('\n');
  return helper + source
    .replace(ctor, (m, fs, cwd, env) => m.replace(`this.fs=${fs},`, `this.fs=${fs},this.__clawserEnv=${env},`))
    .replace(simple, (_m, head, pattern, a, b, c) => `${head}return __clawserGlob(this,${pattern},await this.expandSegments(${a},${b},${c}))}`)
    .replace(recursive, (_m, head, set, a, b, c, list) => `${head}__clawserGlobOrder(this,[...new Set(${set})])):(await this.walkDirectory(${a},${b},${c}),__clawserGlobOrder(this,${list}))}`);
}

/** Kept in the vendored file too (tests check the build is current). */
export const EVAL_PATCH_MARK = 'clawser: eval nests at most maxCallDepth deep (issue 32)';

/**
 * `eval` nested without a limit in just-bash (its `source` stops at a depth, its functions at
 * maxCallDepth): an eval that evaluates itself (`x='eval "$x"'; eval "$x"`, an alias of several
 * commands calling itself on the line that defines it) grew until the page ran out of memory.
 * It now stops at maxCallDepth levels with just-bash's own limit error, like `source`.
 * @param {string} source @param {string} path
 */
function patchEvalDepth(source, path) {
  const limitError = /throw (\w+)\.state\.sourceDepth--,new (\w+)\(`source: maximum nesting depth/;
  const body = /(async function \w+\((\w+),\w+,\w+,\w+=!1\)\{let \w+=\w+;if\(\w+\.length>0\)\{let \w+=\w+\[0\];if\(\w+==="--"\)[^]{0,300}?bash: eval: [^]{0,300}?)try\{(let \w+=\w+\(\w+\);return await \2\.executeScript\(\w+\)\}catch\(\w+\)\{[^]{0,300}?\}finally\{)/g;
  const error = source.match(limitError)?.[2];
  const found = source.match(body)?.length ?? 0;
  if (!error || found !== 1) throw new Error(`just-bash's eval changed (${found} found${error ? '' : ', no limit error'}); update patchEvalDepth in scripts/just-bash-patches.mjs (${path})`);
  return `/*! ${EVAL_PATCH_MARK} */\n${source.replace(body, (_m, head, e, rest) => `${head}if((${e}.state.__clawserEvalDepth=(${e}.state.__clawserEvalDepth||0)+1)>${e}.limits.maxCallDepth){${e}.state.__clawserEvalDepth--;throw new ${error}(\`eval: maximum nesting depth (\${${e}.limits.maxCallDepth}) exceeded: an alias or a variable that evaluates itself?\`,"recursion")}try{${rest}${e}.state.__clawserEvalDepth--;`)}`;
}

/**
 * The vendored interpreter's patches, as an esbuild plugin.
 * @returns {import('esbuild').Plugin}
 */
export function patchJustBash() {
  return {
    name: 'patch-just-bash',
    setup(b) {
      b.onLoad({ filter: /just-bash[\\/]dist[\\/]bundle[\\/]browser\.js$/ }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        return { contents: patchEvalDepth(patchGlobs(patchByteStrings(source, args.path), args.path), args.path), loader: 'js' };
      });
    },
  };
}
