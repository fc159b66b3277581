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
export const GLOB_PATCH_MARK = 'clawser: globs ending in / name folders; never . or ..; globstar ** any depth; matches collate by the locale; rg -z reports archive limits; arithmetic syntax errors at run time (issue 32)';

/**
 * Globs as bash expands them (issue 32 §8), which no command can change: a pattern ending in `/`
 * (`*\/`, `notes/*\/`) names the folders it matches, each with its slash (just-bash matched files
 * too and dropped the slash), and matches are ordered by the locale of the environment like
 * `sort` and `ls` (web/shell/commands/collate.js, bundled in: LC_ALL=C is byte order, just-bash's
 * only order). The glob expander keeps the environment it is given; its sorts go through it.
 * No pattern matches `.` or `..` (bash 5.2's globskipdots, on by default): just-bash offered them
 * to any part starting with `.` and to every part under dotglob, and dropped them again only when
 * they ended the match — which a trailing `/` defeated, so `rm -rf .*\/` removed the parent
 * folder. They are now offered only to a part that is literally `.` or `..` (`*\/..` still works)
 * or when globskipdots is off. With globstar, a pattern with a `**` part is expanded by
 * web/shell/globstar.js (bundled in): `**` matches zero or more folders, as bash's does.
 * @param {string} source @param {string} path
 */
function patchGlobs(source, path) {
  const ctor = /constructor\((\w+),(\w+),(\w+),(\w+)\)\{this\.fs=\1,this\.cwd=\2,typeof \4=="boolean"/;
  const simple = /(async expandSimple\((\w+)\)\{[^]{0,600}?)return\(await this\.expandSegments\((\w+),(\w+),(\w+)\)\)\.sort\(\)\}/;
  const recursive = /async expandRecursive\((\w+)\)\{[^]{0,400}?\}(?=async walkDirectoryMultiGlobstar\()/;
  // Where just-bash adds `.` and `..` to a folder's names before matching a part (two branches).
  const dots = /(\w)\.startsWith\("\."\)\|\|this\.dotglob/g;
  const skipDots = 'if((this.hasGlobignore||this.globskipdots)&&(r==="."||r===".."))return!1;';
  for (const [name, re] of /** @type {const} */ ([['constructor', ctor], ['expandSimple', simple], ['expandRecursive', recursive]])) {
    if ((source.match(new RegExp(re.source, 'g'))?.length ?? 0) !== 1) throw new Error(`just-bash's glob expander changed (${name}); update patchGlobs in scripts/vendor.mjs (${path})`);
  }
  if ((source.match(dots)?.length ?? 0) !== 2) throw new Error(`just-bash's glob expander changed (. and ..); update patchGlobs in scripts/vendor.mjs (${path})`);
  if (source.split(skipDots).length !== 2) throw new Error(`just-bash's glob expander changed (globskipdots filter); update patchGlobs in scripts/vendor.mjs (${path})`);
  const collate = JSON.stringify(join(root, 'web', 'shell', 'commands', 'collate.js'));
  const globstar = JSON.stringify(join(root, 'web', 'shell', 'globstar.js'));
  const helper = [
    `/*! ${GLOB_PATCH_MARK} */`,
    `import { collationOf as __clawserCollationOf } from ${collate};`,
    `import { expandGlobstar as __clawserExpandGlobstar } from ${globstar};`,
    'function __clawserGlobOrder(g,list){return list.sort(__clawserCollationOf(g.__clawserEnv instanceof Map?g.__clawserEnv:new Map()).compare)}',
    'async function __clawserGlob(g,pattern,found){if(!pattern.endsWith("/"))return __clawserGlobOrder(g,found);const dirs=await Promise.all(found.map(async p=>{try{return(await g.fs.stat(g.fs.resolvePath(g.cwd,p))).isDirectory}catch{return false}}));return __clawserGlobOrder(g,found.filter((_,i)=>dirs[i]).map(p=>`${p}/`))}',
    '',
  ].join('\n');
  return helper + source
    .replace(ctor, (m, fs, cwd, env) => m.replace(`this.fs=${fs},`, `this.fs=${fs},this.__clawserEnv=${env},`))
    .replace(simple, (_m, head, pattern, a, b, c) => `${head}return __clawserGlob(this,${pattern},await this.expandSegments(${a},${b},${c}))}`)
    .replace(recursive, (_m, pattern) => `async expandRecursive(${pattern}){return __clawserGlobOrder(this,await __clawserExpandGlobstar(this,${pattern}))}`)
    .replace(dots, (_m, part) => `${part}.startsWith(".")&&(!this.globskipdots||!this.hasGlobChars(${part}))`)
    // Only GLOBIGNORE still drops a final `.` or `..`: globskipdots is kept where they are offered.
    .replace(skipDots, 'if(this.hasGlobignore&&(r==="."||r===".."))return!1;');
}

/**
 * `rg -z` skipped a .gz it could not expand without a word (just-bash returns "no content"), so
 * a zip bomb — refused by the zlib stand-in's archive limits (scripts/shims/node-zlib.mjs) —
 * read as "no match". Now each such file is reported on stderr, `rg: FILE: ` and the shared
 * ArchiveLimitError message (the one gunzip and zcat print), and rg exits 2 as ripgrep does
 * after an error (0 when -q found a match).
 * @param {string} source @param {string} path
 */
function patchRgArchives(source, path) {
  // The .gz branch of rg's file reader, up to its catch (which drops the error).
  const reader = /(if\((\w)\.searchZip&&(\w)\.endsWith\("\.gz"\)\)\{let \w=await (\w)\.fs\.stat\(\w\)[^]{0,800}?)catch\((\w)\)\{return (\w)\?\.release\(\),(\w)\?\.release\(\),(\w+)\(\5\),null\}/;
  // rg's search loop: its context (first parameter), through to the result it returns.
  const search = /(async function \w+\((\w),\w,\w,(\w),\w,\w,\w\)\{let \w="",(\w)=!1,[^]{0,6000}?)let (\w);return (\w)\.filesWithoutMatch\?\5=(\w)\.length>0\?0:1:\5=\4\?0:1,\{stdout:(\w),stderr:"",exitCode:\5\}\}/;
  for (const [name, re] of /** @type {const} */ ([['reader', reader], ['search', search]])) {
    if ((source.match(new RegExp(re.source, 'g'))?.length ?? 0) !== 1) throw new Error(`just-bash's rg changed (${name}); update patchRgArchives in scripts/just-bash-patches.mjs (${path})`);
  }
  const helper = [
    'const __clawserRgErrors=new WeakMap();',
    'function __clawserRgFailed(ctx,file,err){const e=err instanceof Error?err:new Error(String(err));const text=e.name==="ArchiveLimitError"?e.message:`cannot decompress: ${e.message}`;const list=__clawserRgErrors.get(ctx)??[];list.push(`rg: ${file}: ${text}\\n`);__clawserRgErrors.set(ctx,list);return null}',
    'function __clawserRgResult(ctx,result,quietMatch){const list=__clawserRgErrors.get(ctx);if(!list)return result;__clawserRgErrors.delete(ctx);return{...result,stderr:result.stderr+list.join(""),exitCode:quietMatch?result.exitCode:2}}',
    '',
  ].join('\n');
  return helper + source
    .replace(reader, (_m, head, _o, file, ctx, err, a, b, rethrow) => `${head}catch(${err}){return ${a}?.release(),${b}?.release(),${rethrow}(${err}),__clawserRgFailed(${ctx},${file},${err})}`)
    .replace(search, (_m, head, ctx, o, matched, status, o2, out, stdout) => `${head}let ${status};return ${o2}.filesWithoutMatch?${status}=${out}.length>0?0:1:${status}=${matched}?0:1,__clawserRgResult(${ctx},{stdout:${stdout},stderr:"",exitCode:${status}},${o}.quiet&&${matched})}`);
}

/**
 * An arithmetic syntax error the parser finds — a decimal point (`$((1 + 2.3))`) — threw while
 * the line was parsed, so nothing of the line ran: `echo a > f; echo $((1 + 2.3)); echo b` wrote
 * no f. As bash does, it is now an error of the command that expands it: the parser keeps it as
 * a syntax-error node (bash's message: `1 + 2.3: syntax error: invalid arithmetic operator
 * (error token is ".3")`), which fails when evaluated; and such a syntax error met while
 * expanding a word ends the command line it is on there, status 1 — the rest of that line does
 * not run, the next line does (bash reads and runs a script a line at a time; just-bash went on
 * with the next command). `((…))`, `let`, `[[ … ]]` and `for ((…))`'s own arithmetic fail with
 * status 1 and the line goes on, as bash's.
 * @param {string} source @param {string} path
 */
function patchArithmetic(source, path) {
  const decimal = /throw new (\w+)\(`\$\{(\w)\}\.\$\{(\w)\[(\w)\+1\]\}\.\.\.: syntax error: invalid arithmetic operator`\)/;
  // The whole of executeScript: its loop over the statements, and its handler of an arithmetic
  // error (it went on with the next statement).
  const script = /async executeScript\((\w)\)\{([^]{0,200}?)for\(let (\w) of \1\.statements\)try\{([^]{0,2600}?if\((\w) instanceof (\w+)\)\{(\w)\.append\("stdout",\5\.stdout,\5\.internalOutputAccounting\.stdout\),\7\.append\("stderr",\5\.stderr,\5\.internalOutputAccounting\.stderr\),(\w)=1,this\.ctx\.state\.lastExitCode=\8,this\.ctx\.state\.env\.set\("\?",String\(\8\)\);)continue\}([^]{0,800}?)\}(return\{\.\.\.\7\.build\(\8\),env:[\w$]+\(this\.ctx\.state\.env\)\}\}async executeUserScript\()/;
  // The parser's top-level loop: where a statement ends a line (a newline, the end).
  const lines = /(parseScript\(\)\{[^]{0,300}?let \w=this\.pos,(\w)=this\.parseStatement\(\));(\2&&\w+\.push\(\2\),this\.check\((\w+)\.HEREDOC_CONTENT\)&&this\.processHeredocs\(\),this\.skipSeparators\(!1\),)/;
  for (const [name, re] of /** @type {const} */ ([['decimal', decimal], ['script', script], ['lines', lines]])) {
    if ((source.match(new RegExp(re.source, 'g'))?.length ?? 0) !== 1) throw new Error(`just-bash's arithmetic changed (${name}); update patchArithmetic in scripts/just-bash-patches.mjs (${path})`);
  }
  if (source.match(script)?.[6] !== source.match(decimal)?.[1]) throw new Error(`just-bash's arithmetic changed (error class); update patchArithmetic in scripts/just-bash-patches.mjs (${path})`);
  // A C-style for's own arithmetic (init, condition, update) fails like `((…))`: status 1, the
  // line goes on (bash's), where an error in its body still ends the line.
  const cFor = /async function ([\w$]+)\(([\w$]+),([\w$]+)\)\{return ([\w$]+)\(\2,\3\.redirections,"",\(\)=>([\w$]+)\(\2,\3\)\)\}(async function \5\(([\w$]+),([\w$]+)\)\{(?=[^]{0,200}?\8\.init&&)[^]{0,1500}?\}finally\{\7\.state\.loopDepth--\}return [\w$]+\.build\([\w$]+\)\})/;
  const found = source.match(cFor);
  if ((source.match(new RegExp(cFor.source, 'g'))?.length ?? 0) !== 1 || !found) throw new Error(`just-bash's C-style for changed; update patchArithmetic in scripts/just-bash-patches.mjs (${path})`);
  const [, forName, e, t, redirect, loop, loopBody, le, lt] = found;
  const evalCall = new RegExp(`await ([\\w$]+)\\(${le},${lt}\\.(init|condition|update)\\.expression\\)`, 'g');
  if ((loopBody.match(evalCall)?.length ?? 0) !== 4) throw new Error(`just-bash's C-style for changed (its arithmetic); update patchArithmetic in scripts/just-bash-patches.mjs (${path})`);
  const forLoop = `async function ${forName}(${e},${t}){return ${redirect}(${e},${t}.redirections,"",()=>${loop}(${e},${t}).catch(err=>{if(err&&err.__clawserForArithmetic)return{stdout:"",stderr:\`bash: ((: \${err.message}\\n\`,exitCode:1};throw err}))}`;
  const markedBody = loopBody.replace(evalCall, (_m, evaluate, part) => `await ${evaluate}(${le},${lt}.${part}.expression).catch(err=>{if(err&&err.name==="ArithmeticError")err.__clawserForArithmetic=!0;throw err})`);
  return source
    .replace(cFor, () => `${forLoop}${markedBody}`)
    .replace(decimal, (_m, _cls, _digits, text, at) => `return{expr:{type:"ArithSyntaxError",errorToken:${text}.slice(${at}),message:\`\${${text}.replace(/^\\s+/,"")}: syntax error: invalid arithmetic operator (error token is "\${${text}.slice(${at})}")\`},pos:${text}.length}`)
    // A statement followed by a newline (or the end) ends a command line.
    .replace(lines, (_m, head, st, rest, tokens) => `${head},__clawserEnd=this.pos;${rest}${st}&&(this.check(${tokens}.EOF)||this.tokens.slice(__clawserEnd,this.pos).some(k=>k.type===${tokens}.NEWLINE||k.type===${tokens}.HEREDOC_CONTENT))&&(${st}.__clawserEndsLine=!0),`)
    .replace(script, (_m, t0, head, st, body, err, _cls, _out, _status, rest, tail) =>
      `async executeScript(${t0}){${head}let __clawserSkip=!1;for(let ${st} of ${t0}.statements){if(__clawserSkip){__clawserSkip=!${st}.__clawserEndsLine;continue}try{${body}if(${err}.fatal){__clawserSkip=!${st}.__clawserEndsLine;continue}continue}${rest}}}${tail}`);
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
        return { contents: patchEvalDepth(patchArithmetic(patchRgArchives(patchGlobs(patchByteStrings(source, args.path), args.path), args.path), args.path), args.path), loader: 'js' };
      });
    },
  };
}
