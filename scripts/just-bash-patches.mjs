// Why this file is long: one patch per fix to the vendored interpreter, each with the exact code it
//  replaces and why; they apply in order to one file, and one list keeps that order visible.
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
  const helper =
    'function __clawserLatin1(b){const p=[];for(let i=0;i<b.length;i+=32768)p.push(String.' +
    'fromCharCode.apply(null,b.subarray(i,i+32768)));return p.join("")}\n';
  const found = source.match(loop)?.length ?? 0;
  if (found !== 2)
    throw new Error(`just-bash's byte-string loops changed (${found} found); update patchByteStrings in scripts/vendor.mjs (${path})`);
  return helper + source.replace(loop, 'return $3+__clawserLatin1($2)');
}

/** Kept in the vendored file (a legal comment survives minifying): tests check the build is current. */
export const GLOB_PATCH_MARK =
  'clawser: globs ending in / name folders; never . or ..; globstar ** any depth; matches collate by the ' +
  'locale; rg -z reports archive limits; arithmetic syntax errors at run time (issue 32)';

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
  for (const [name, re] of /** @type {const} */ ([
    ['constructor', ctor],
    ['expandSimple', simple],
    ['expandRecursive', recursive],
  ])) {
    if ((source.match(new RegExp(re.source, 'g'))?.length ?? 0) !== 1)
      throw new Error(`just-bash's glob expander changed (${name}); update patchGlobs in scripts/vendor.mjs (${path})`);
  }
  if ((source.match(dots)?.length ?? 0) !== 2)
    throw new Error(`just-bash's glob expander changed (. and ..); update patchGlobs in scripts/vendor.mjs (${path})`);
  if (source.split(skipDots).length !== 2)
    throw new Error(`just-bash's glob expander changed (globskipdots filter); update patchGlobs in scripts/vendor.mjs (${path})`);
  const collate = JSON.stringify(join(root, 'web', 'shell', 'commands', 'collate.js'));
  const globstar = JSON.stringify(join(root, 'web', 'shell', 'globstar.js'));
  const helper = [
    `/*! ${GLOB_PATCH_MARK} */`,
    `import { collationOf as __clawserCollationOf } from ${collate};`,
    `import { expandGlobstar as __clawserExpandGlobstar } from ${globstar};`,
    'function __clawserGlobOrder(g,list){return list.sort(__clawserCollationOf(g.' +
      '__clawserEnv instanceof Map?g.__clawserEnv:new Map()).compare)}',
    'async function __clawserGlob(g,pattern,found){if(!pattern.endsWith("/"))return __clawserGlobOrder(g,found);const ' +
      'dirs=await Promise.all(found.map(async p=>{try{return(await g.fs.stat(g.fs.resolvePath(g.cwd,p))).' +
      'isDirectory}catch{return false}}));return __clawserGlobOrder(g,found.filter((_,i)=>dirs[i]).map(p=>`${p}/`))}',
    '',
  ].join('\n');
  return (
    helper +
    source
      .replace(ctor, (m, fs, cwd, env) => m.replace(`this.fs=${fs},`, `this.fs=${fs},this.__clawserEnv=${env},`))
      .replace(
        simple,
        (_m, head, pattern, a, b, c) => `${head}return __clawserGlob(this,${pattern},await this.expandSegments(${a},${b},${c}))}`,
      )
      .replace(
        recursive,
        (_m, pattern) =>
          `async expandRecursive(${pattern}){return __clawserGlobOrder(this,await __clawserExpandGlobstar(this,${pattern}))}`,
      )
      .replace(dots, (_m, part) => `${part}.startsWith(".")&&(!this.globskipdots||!this.hasGlobChars(${part}))`)
      // Only GLOBIGNORE still drops a final `.` or `..`: globskipdots is kept where they are offered.
      .replace(skipDots, 'if(this.hasGlobignore&&(r==="."||r===".."))return!1;')
  );
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
  const reader = new RegExp(
    String.raw`(if\((\w)\.searchZip&&(\w)\.endsWith\("\.gz"\)\)\{let \w=await (\w)\.fs\.stat\(\w\)[^]{0,800}?)` +
      String.raw`catch\((\w)\)\{return (\w)\?\.release\(\),(\w)\?\.release\(\),(\w+)\(\5\),null\}`,
  );
  // rg's search loop: its context (first parameter), through to the result it returns.
  const search = new RegExp(
    String.raw`(async function \w+\((\w),\w,\w,(\w),\w,\w,\w\)\{let \w="",(\w)=!1,[^]{0,6000}?)let (\w);return (\w)` +
      String.raw`\.filesWithoutMatch\?\5=(\w)\.length>0\?0:1:\5=\4\?0:1,\{stdout:(\w),stderr:"",exitCode:\5\}\}`,
  );
  for (const [name, re] of /** @type {const} */ ([
    ['reader', reader],
    ['search', search],
  ])) {
    if ((source.match(new RegExp(re.source, 'g'))?.length ?? 0) !== 1)
      throw new Error(`just-bash's rg changed (${name}); update patchRgArchives in scripts/just-bash-patches.mjs (${path})`);
  }
  const helper = [
    'const __clawserRgErrors=new WeakMap();',
    'function __clawserRgFailed(ctx,file,err){const e=err instanceof Error?err:new Error(String(err));const ' +
      'text=e.name==="ArchiveLimitError"?e.message:`cannot decompress: ${e.message}`;const ' +
      'list=__clawserRgErrors.get(ctx)??[];list.push(`rg: ${file}: ${text}\\n`);__clawserRgErrors.set(ctx,list);return ' +
      'null}',
    'function __clawserRgResult(ctx,result,quietMatch){const list=__clawserRgErrors.get(ctx);if(!list)return ' +
      'result;__clawserRgErrors.delete(ctx);return{...result,stderr:result.stderr+list.join(""),exitCode:quietMatch?result.exitCode:' +
      '2}}',
    '',
  ].join('\n');
  return (
    helper +
    source
      .replace(
        reader,
        (_m, head, _o, file, ctx, err, a, b, rethrow) =>
          `${head}catch(${err}){return ${a}?.release(),${b}?.release(),${rethrow}(${err}),__clawserRgFailed(${ctx},${file},${err})}`,
      )
      .replace(
        search,
        (_m, head, ctx, o, matched, status, o2, out, stdout) =>
          `${head}let ${status};return ${o2}.filesWithoutMatch?${status}=${out}.length>0?0:1:${status}=${matched}?0:1,__clawserRgResult(` +
          `${ctx},{stdout:${stdout},stderr:"",exitCode:${status}},${o}.quiet&&${matched})}`,
      )
  );
}

/**
 * An arithmetic syntax error the parser finds — a decimal point (`$((1 + 2.3))`) — threw while
 * the line was parsed, so nothing of the line ran: `echo a > f; echo $((1 + 2.3)); echo b` wrote
 * no f. As bash does, it is now an error of the command that expands it: the parser keeps it as
 * a syntax-error node (bash's message: `syntax error: invalid arithmetic operator (error token
 * is ".3")`, after the expression), which fails when evaluated.
 *
 * Any arithmetic error met while expanding a word — that one, a division by 0, a negative
 * exponent — ends the command line it is on (issue 32 §8), wherever on that line it is: in an
 * `if`, a loop, `{ … }`, a function, an `&&`/`||` list (just-bash went on with the next command,
 * or the next command of the body it was in, without bash's `bash: ` in front). The status is 1,
 * the next line runs (bash reads and runs a script a line at a time). A command that meets one
 * throws just-bash's `exit` error, marked (`__clawserLineAbort`): everything between the command
 * and the line lets an `exit` through, and what bash runs in a subshell stops there as after an
 * `exit 1` — `( … )`, a pipeline's commands, `$( … )` and `<( … )` (their bodies are marked
 * `__clawserSubshell`, so the script runner lets it through) — while a script's runner (the
 * line, `eval`, `source`, a script file) skips to the end of the line instead. `((…))`, `let`,
 * `[[ … ]]` and `for ((…))`'s own arithmetic fail with status 1 and the line goes on, as bash's;
 * a `for ((…))` keeps the output of the rounds it ran.
 * @param {string} source @param {string} path
 */
function patchArithmetic(source, path) {
  const decimal = /throw new (\w+)\(`\$\{(\w)\}\.\$\{(\w)\[(\w)\+1\]\}\.\.\.: syntax error: invalid arithmetic operator`\)/;
  // The whole of executeScript: its loop over the statements, and its handler of an arithmetic
  // error (it went on with the next statement).
  const script = new RegExp(
    String.raw`async executeScript\((\w)\)\{([^]{0,200}?)for\(let (\w) of \1\.statements\)try\{([^]{0,2600}?if\((\w)` +
      String.raw` instanceof (\w+)\)\{(\w)\.append\("stdout",\5\.stdout,\5\.internalOutputAccounting\.stdout\)` +
      String.raw`,\7\.append\("stderr",\5\.stderr,\5\.internalOutputAccounting\.stderr\),(\w)` +
      String.raw`=1,this\.ctx\.state\.lastExitCode=\8,this\.ctx\.state\.env\.set\("\?",String\(\8\)\);)` +
      String.raw`continue\}([^]{0,800}?)\}(return\{\.\.\.\7\.build\(\8\),env:[\w$]+\(this\.ctx\.state\.env\)` +
      String.raw`\}\}async executeUserScript\()`,
  );
  // Its catch, which starts by letting `exit` through: the exit error's class.
  const scriptCatch = /\}catch\((\w)\)\{(?=if\(\1 instanceof ([\w$]+)\)throw \1\.prependOutput\()/;
  // The parser's top-level loop: where a statement ends a line (a newline, the end).
  const lines = new RegExp(
    String.raw`(parseScript\(\)\{[^]{0,300}?let \w=this\.pos,(\w)=this\.parseStatement\(\));(\2&&\w+\.push\(\2\)` +
      String.raw`,this\.check\((\w+)\.HEREDOC_CONTENT\)&&this\.processHeredocs\(\),this\.skipSeparators\(!1\),)`,
  );
  // Every command runs through executeCommand: an arithmetic error it lets through ends the line.
  const command = new RegExp(
    String.raw`(async executeCommand\((\w),(\w),(\w)=!1\)\{let (\w)=[\w$]+\(this\.ctx\),(\w)` +
      String.raw`;try\{\6=await this\.executeCommandInner\(\2,\3,\4\)\}catch\((\w)\)\{throw await [\w$]+\(this\.ctx,\5\)\.catch\(\(\)` +
      String.raw`=>\{\}\),)\7\}`,
  );
  const subshells = new RegExp(
    String.raw`(commandSubstitution\((\w),\w=!1\)\{return)(\{type:"CommandSubstitution",body:\2,)|` +
      String.raw`(processSubstitution\((\w),\w\)\{return)(\{type:"ProcessSubstitution",body:\5,)`,
    'g',
  );
  for (const [name, re] of /** @type {const} */ ([
    ['decimal', decimal],
    ['script', script],
    ['lines', lines],
    ['executeCommand', command],
  ])) {
    if ((source.match(new RegExp(re.source, 'g'))?.length ?? 0) !== 1)
      throw new Error(`just-bash's arithmetic changed (${name}); update patchArithmetic in scripts/just-bash-patches.mjs (${path})`);
  }
  const arithClass = source.match(decimal)?.[1];
  const scriptBody = source.match(script)?.[4] ?? '';
  const exitClass = scriptBody.match(scriptCatch)?.[2];
  if (source.match(script)?.[6] !== arithClass || !exitClass || (source.match(subshells)?.length ?? 0) !== 2)
    throw new Error(
      `just-bash's arithmetic changed (error classes, substitutions); update patchArithmetic in scripts/just-bash-patches.mjs (${path})`,
    );
  // A C-style for's own arithmetic (init, condition, update) fails like `((…))`: status 1, the
  // line goes on (bash's), where an error in its body still ends the line.
  const cFor = new RegExp(
    String.raw`async function ([\w$]+)\(([\w$]+),([\w$]+)\)\{return ([\w$]+)\(\2,\3\.redirections,"",\(\)` +
      String.raw`=>([\w$]+)\(\2,\3\)\)\}(async function \5\(([\w$]+),([\w$]+)\)\{(?=[^]{0,200}?\8\.init&&)` +
      String.raw`[^]{0,1500}?\}finally\{\7\.state\.loopDepth--\}return [\w$]+\.build\([\w$]+\)\})`,
  );
  const found = source.match(cFor);
  if ((source.match(new RegExp(cFor.source, 'g'))?.length ?? 0) !== 1 || !found)
    throw new Error(`just-bash's C-style for changed; update patchArithmetic in scripts/just-bash-patches.mjs (${path})`);
  const [, forName, e, t, redirect, loop, loopBody, le, lt] = found;
  const evalCall = new RegExp(`await ([\\w$]+)\\(${le},${lt}\\.(init|condition|update)\\.expression\\)`, 'g');
  // The loop's output so far (a for ((…)) whose update fails keeps its rounds' output).
  const output = loopBody.match(new RegExp(`let ([\\w$]+)=new [\\w$]+\\(${le}\\)`))?.[1];
  if ((loopBody.match(evalCall)?.length ?? 0) !== 4 || !output)
    throw new Error(`just-bash's C-style for changed (its arithmetic); update patchArithmetic in scripts/just-bash-patches.mjs (${path})`);
  const forLoop =
    `async function ${forName}(${e},${t}){return ${redirect}(${e},${t}.redirections,"",()=>${loop}(${e},${t}).` +
    `catch(err=>{if(err&&err.__clawserForArithmetic)return{stdout:err.__clawserForOutput[0],stderr:\`\${err.__clawserForOutput[1]}bash: ` +
    `((: \${__clawserCommandMessage(err,err.__clawserForExpr)}\\n\`,exitCode:1};throw err}))}`;
  const markedBody = loopBody.replace(
    evalCall,
    (_m, evaluate, part) =>
      `await ${evaluate}(${le},${lt}.${part}.expression).catch(err=>{if(err&&err.name==="ArithmeticError")err.__clawserForArithmetic=!0,` +
      `err.__clawserForExpr=${lt}.${part},err.__clawserForOutput=[${output}.stdout,${output}.stderr];throw err})`,
  );
  /** executeScript's handler of a line-ending error: the names of its catch, statement, output, status, script. */
  const lineAbort = (
    /** @type {string} */ err,
    /** @type {string} */ st,
    /** @type {string} */ out,
    /** @type {string} */ status,
    /** @type {string} */ t0,
  ) =>
    `if(${err} instanceof ${exitClass}&&${err}.__clawserLineAbort&&!${t0}.__clawserSubshell){${out}.append("stdout",${err}.stdout,${err}` +
    `.internalOutputAccounting.stdout),${out}.append("stderr",${err}.stderr,${err}.internalOutputAccounting.stderr),${status}=1,this.` +
    `ctx.state.lastExitCode=${status},this.ctx.state.env.set("?",String(${status}));__clawserSkip=!${st}.__clawserEndsLine;continue}`;
  return (
    source
      .replace(cFor, () => `${forLoop}${markedBody}`)
      .replace(
        decimal,
        (_m, _cls, _digits, text, at) =>
          `return{expr:{type:"ArithSyntaxError",errorToken:${text}.slice(${at}),message:\`syntax error: invalid arithmetic operator ` +
          `(error token is "\${${text}.slice(${at})}")\`,__clawserText:${text}},pos:${text}.length}`,
      )
      // A statement followed by a newline (or the end) ends a command line.
      .replace(
        lines,
        (_m, head, st, rest, tokens) =>
          `${head},__clawserEnd=this.pos;${rest}${st}&&(this.check(${tokens}.EOF)||this.tokens.slice(__clawserEnd,this.pos).some(k=>k.` +
          `type===${tokens}.NEWLINE||k.type===${tokens}.HEREDOC_CONTENT))&&(${st}.__clawserEndsLine=!0),`,
      )
      .replace(
        script,
        (_m, t0, head, st, body, err, _cls, out, status, rest, tail) =>
          `async executeScript(${t0}){${head}let __clawserSkip=!1;for(let ${st} of ${t0}.statements){if(__clawserSkip){__clawserSkip=!` +
          `${st}.__clawserEndsLine;continue}try{${body.replace(
            scriptCatch,
            (/** @type {string} */ c) => `${c}` + `${lineAbort(err, st, out, status, t0)}`,
          )}__clawserSkip=!${st}.__clawserEndsLine;continue}${rest}}}${tail}`,
      )
      .replace(command, (_m, head, _t, _n, _r, _s, _i, err) => `${head}__clawserLineAbort(${err},${arithClass},${exitClass})}`)
      .replace(subshells, (_m, csHead, csBody, csRest, psHead, psBody, psRest) =>
        csHead
          ? `${csHead} ${csBody}&&(${csBody}.__clawserSubshell=!0),${csRest}`
          : `${psHead} ${psBody}&&(${psBody}.__clawserSubshell=!0),${psRest}`,
      )
  );
}

/**
 * Bash's messages for arithmetic errors: `EXPRESSION: MESSAGE (error token is "TOKEN")`, where
 * the token of a division by 0 is the rest of the expression after the `/` or `%` (`10 / 0 + 3`
 * → `0 + 3`), and that of a negative exponent the token after the exponent (`2 ** -1 + 4` →
 * `+ 4`; at the end, the exponent's last: `2**-1` → `1`). just-bash said `division by 0`, with
 * neither; `x /= 0` was 0, not an error. Now the parser marks the right side of `/`, `%`, `**`
 * and the assignments with the text and where it starts and ends; the messages are without the
 * expression (just-bash's own way: `let` puts its own in front), and who reports one puts the
 * expression in front — `$((…))` and `$[…]` (the text it evaluated, after `$x` is expanded),
 * `((…))` and `for ((…))` as bash's `((: EXPRESSION: MESSAGE`. A message about a value of a
 * variable (`x='1 2'; echo $((x + 1))`) keeps that value as its expression, as bash's does.
 * @param {string} source @param {string} path
 */
function patchArithmeticMessages(source, path) {
  const fail = (/** @type {string} */ what) =>
    new Error(`just-bash's arithmetic changed (${what}); update patchArithmeticMessages in scripts/just-bash-patches.mjs (${path})`);
  // The arithmetic error's class, and the function that applies `+=`, `/=`… (named in the bundle).
  const cls = source.match(/case"\/":if\(\w===0\)throw new (\w+)\("division by 0"\)/)?.[1];
  const compound = source.match(/function ([\w$]+)\(\w,\w,\w\)\{switch\(\w\)\{case"=":return \w;case"\+=":/)?.[1];
  if (!cls || !compound) throw fail('error class, assignments');
  /** @type {[string, RegExp, number, (...m: string[]) => string][]} */
  const edits = [
    // The parser: the right side of `/` and `%`, of `**`, of the assignments.
    [
      'division',
      new RegExp(
        String.raw`(else if\((\w)\[(\w)\]==="\/"\|\|\2\[\3\]==="%"\)\{let (\w)` +
          String.raw`=\2\[\3\];if\(\3\+\+,[\w$]+\(\2,\3\)\)return [\w$]+\(\4,\3\);let\{expr:\w,pos:\w\}=)` +
          String.raw`([\w$]+\(\w,\2,\3\))`,
        'g',
      ),
      1,
      (_m, head, t, s, _op, call) => `${head}__clawserSpan(${call},${t},${s})`,
    ],
    [
      'power',
      new RegExp(
        String.raw`(if\((\w)\.slice\((\w),\3\+2\)==="\*\*"\)\{if\(\3\+=2,[\w$]+\(\2,\3\)\)` +
          String.raw`return [\w$]+\("\*\*",\3\);let\{expr:\w,pos:\w\}=)((\w)\.withDepth\(\(\)=>[\w$]+\(\5,\2,\3\)\))`,
        'g',
      ),
      1,
      (_m, head, t, s, call) => `${head}__clawserSpan(${call},${t},${s})`,
    ],
    [
      'assignment',
      /((\w)\+=\w\.length;let\{expr:\w,pos:\w\}=)((\w)\.withDepth\(\(\)=>[\w$]+\(\4,(\w),\2\)\))/g,
      3,
      (_m, head, s, call, _p, t) => `${head}__clawserSpan(${call},${t},${s})`,
    ],
    // The evaluator: `a / b`, `a ** b`, `x /= b`, and a syntax error the parser kept.
    [
      'binary',
      /let (\w)=await (\w)\((\w)\.left\),(\w)=await \2\(\3\.right\);return ([\w$]+)\(\1,\4,\3\.operator\)/g,
      1,
      (_m, a, evaluate, node, b, apply) =>
        `let ${a}=await ${evaluate}(${node}.left),${b}=await ${evaluate}(${node}.right);return ` +
        `__clawserBinary(${apply},${a},${b},${node},${cls})`,
    ],
    [
      'assign',
      new RegExp(`=${compound.replace(/\$/g, '\\$')}\\((\\w),(\\w),(\\w)\\.operator\\)`, 'g'),
      2,
      (_m, a, b, node) => `=__clawserAssign(${compound},${a},${b},${node},${cls})`,
    ],
    [
      'syntax node',
      /case"ArithSyntaxError":throw new (\w+)\((\w)\.message,"","",!0\)/g,
      1,
      (_m, cls, node) =>
        `case"ArithSyntaxError":throw Object.assign(new ${cls}(${node}.message,"","",!0),{__clawserText:${node}.__clawserText})`,
    ],
    // A number too great for its base (`08`): bash's expression is the text up to it, its token the number.
    [
      'number',
      new RegExp(
        String.raw`(if\((\w)\[(\w)\]==="\["\)\{let \w=\2\.slice\(\3\)\.trim\(\);return\{expr:\{type:"ArithNumberSubscript",number:(\w` +
          String.raw`),errorToken:\w\},pos:\2\.length\}\}return\{expr:\{type:"ArithNumber",value:[\w$]+\(\4\))\}`,
        'g',
      ),
      1,
      (_m, head, t, s, literal) => `${head},__clawserIn:${t},__clawserTo:${s},__clawserLiteral:${literal}}`,
    ],
    [
      'base value',
      /case"ArithNumber":if\(Number\.isNaN\((\w)\.value\)\)throw new (\w+)\("value too great for base"\)/g,
      1,
      (_m, node, err) => `case"ArithNumber":if(Number.isNaN(${node}.value))throw __clawserBase(${node},${err})`,
    ],
    // Messages that had text in front (a word, a number), now as bash words them.
    [
      'leftover',
      /message:`\$\{(\w)\}: syntax error: invalid arithmetic operator \(error token is "\$\{\1\}"\)`/g,
      2,
      (_m, tok) =>
        `message:\`\${/^[\\w$]/.test(${tok})?"syntax error in expression":"syntax error: invalid arithmetic operator"} (error token is ` +
        `"\${${tok}}")\``,
    ],
    [
      'base',
      /message:`\$\{(\w)\}: value too great for base \(error token is "\$\{\1\}"\)`/g,
      1,
      (_m, tok) => `message:\`value too great for base (error token is "\${${tok}}")\``,
    ],
    [
      'variable',
      /throw new (\w+)\(`\$\{(\w)\}: syntax error in expression \(error token is "\$\{(\w)\}"\)`\)/g,
      1,
      (_m, cls, text, tok) =>
        `throw Object.assign(new ${cls}(\`syntax error in expression (error token is "\${${tok}}")\`),{__clawserText:${text}})`,
    ],
    // Who reports one: `$((…))`/`$[…]`, `((…))`; `let` parses `(( EXPR))` (no space after:
    // the token of `let x=1/0` is `0`, not `0 `).
    [
      'expansion',
      new RegExp(
        String.raw`case"ArithmeticExpansion":\{let (\w)=(\w)\.expression\.originalText;(if\(\1&&[^]{0,80}?\.test\(\1\)\)\{let \w=)` +
          String.raw`(await [\w$]+\(\w,\1\),[^]{0,200}?)\}(return String\(await [\w$]+\(\w,\2\.expression\.expression,!0\)\))\}`,
        'g',
      ),
      1,
      (_m, text, part, ifHead, rest, ret) =>
        `case"ArithmeticExpansion":{let ${text}=${part}.expression.originalText,__clawserText=${text};try{${ifHead}__clawserText=${rest}` +
        `}${ret}}catch(err){throw __clawserArithText(err,__clawserText,${cls})}}`,
    ],
    [
      '((…))',
      /(async executeArithmeticCommand\((\w)\)\{[^]{0,400}?catch\((\w)\)\{return [\w$]+\(`bash: )arithmetic expression: \$\{\3\.message\}/g,
      1,
      (_m, head, node, err) => `${head}((: \${__clawserCommandMessage(${err},${node}.expression)}`,
    ],
    // `((…))` parses its expression rebuilt from tokens (`(( i / 0 ))` is `i / 0`): its text as
    // written is kept for the message (bash's `i / 0 `).
    [
      '((…)) text',
      new RegExp(
        String.raw`parseArithmeticCommand\(\)\{let (\w)=this\.expect\([^]{0,2000}?\w\|\|` +
          String.raw`this\.expect\([\w$]+\.DPAREN_END\);let (\w)=this\.parseArithmeticExpression\((\w)\.trim\(\)\)`,
        'g',
      ),
      1,
      (m, open, expr, text) =>
        m.replace(
          /=this\.parseArithmeticExpression\(\w\.trim\(\)\)$/,
          `=__clawserRawArith(this.parseArithmeticExpression(${text}.trim()),this._input,${open},this.tokens[this.pos-1],${text}.trim())`,
        ),
    ],
    // `for ((…))` builds its three parts from tokens too (`i=i/0`): each keeps its text as written.
    [
      'for ((…)) text',
      new RegExp(
        String.raw`(function [\w$]+\((\w),\w,\w\)\{)\2\.expect\(([\w$]+)\.DPAREN_START\);(let \w=null,\w=null,\w=null,(\w)` +
          String.raw`=\["","",""\],(\w)=0,\w=0;for\(;!\2\.check\(\3\.DPAREN_END,\3\.EOF\);\)\{let (\w)=\2\.advance\(\)` +
          String.raw`;if\(\7\.type===\3\.SEMICOLON&&\w===0\)\{if\()(\6\+\+,\6>2\)break\}[^]{0,100}?\})` +
          String.raw`\2\.expect\(\3\.DPAREN_END\),((?:\5\[[012]\]\.trim\(\)&&\(\w=[\w$]+\(\2,\5\[[012]\]\.trim\(\)\)\),){3})`,
        'g',
      ),
      1,
      (_m, head, p, tokens, decl, parts, _a, tok, loop, build) =>
        `${head}const __clawserMarks=[${p}.expect(${tokens}.DPAREN_START)];${decl}__clawserMarks.push(${tok}),${loop}__clawserMarks.` +
        `push(${p}.current()),${p}.expect(${tokens}.DPAREN_END),${build.replace(
          new RegExp(`(\\w)=([\\w$]+)\\(${p},${parts}\\[([012])` + `\\]\\.trim\\(\\)\\)`, 'g'),
          (_b, v, parse, k) =>
            `${v}=__clawserRawArith(${parse}(${p},${parts}[${k}].trim()),${p}._input,` +
            `__clawserMarks[${k}],__clawserMarks[${Number(k) + 1}],${parts}[${k}].trim())`,
        )}`,
    ],
    ['let', /`\(\( \$\{(\w)\} \)\)`/g, 1, (_m, expr) => `\`(( \${${expr}}))\``],
  ];
  for (const [name, re, count] of edits) if ((source.match(re)?.length ?? 0) !== count) throw fail(name);
  const helper = [
    'function __clawserSpan(r,t,s){if(r&&r.expr&&typeof r.expr==="object")r.expr.' +
      '__clawserIn=t,r.expr.__clawserFrom=s,r.expr.__clawserTo=r.pos;return r}',
    'function __clawserSpanned(n){return!!n&&typeof n.__clawserIn==="string"}',
    'function __clawserRest(n){return n.__clawserIn.slice(n.__clawserFrom).replace(/^\\s+/,"")}',
    'function __clawserBinary(apply,a,b,node,Err){const r=node.right;if(__clawserSpanned(r)){if((node.operator==="/"||node.' +
      'operator==="%")&&b===0)throw Object.assign(new Err(`division by 0 (error token is ' +
      '"${__clawserRest(r)}")`),{__clawserText:r.__clawserIn});if(node.operator==="**"&&b<0){const ' +
      'after=r.__clawserIn.slice(r.__clawserTo).replace(/^\\s+/,""),last=/([A-Za-z0-9_]+|\\S)\\s*$/.exec(r.__clawserIn.slice(r.' +
      '__clawserFrom,r.__clawserTo));throw Object.assign(new Err(`exponent less than 0 (error token is ' +
      '"${after||(last?r.__clawserIn.slice(r.__clawserFrom+last.index):"")}")`),{__clawserText:r.__clawserIn})}}return ' +
      'apply(a,b,node.operator)}',
    'function __clawserAssign(apply,a,b,node,Err){if((node.operator==="/="||node.operator==="%=")&&b===0){const ' +
      'v=node.value;throw Object.assign(new Err(`division by 0 (error token is ' +
      '"${__clawserSpanned(v)?__clawserRest(v):"0"}")`),__clawserSpanned(v)?{__clawserText:v.__clawserIn}:{})}return ' +
      'apply(a,b,node.operator)}',
    'function __clawserBase(n,Err){return typeof n.__clawserIn==="string"?Object.assign(new Err(`value too great for base (error ' +
      'token is "${n.__clawserLiteral}")`),{__clawserText:n.__clawserIn.slice(0,n.__clawserTo)}):new Err("value too great for base")}',
    'function __clawserArithMessage(err,text){if(!err||typeof err.message!=="string")return ' +
      'String(err);if(err.__clawserTexted)return err.message;const t=String(err.__clawserText??text??"").replace(/^\\s+/,"");return ' +
      't?`${t}: ${err.message}`:err.message}',
    'function __clawserRawArith(expr,input,open,close,text){if(expr&&typeof input==="string"&&open&&close&&typeof ' +
      'open.end==="number"&&typeof close.start==="number"){const raw=input.slice(open.end,close.start);if(raw.' +
      'replace(/\\s+/g,"")===text.replace(/\\s+/g,""))expr.__clawserSource=raw}return expr}',
    'function __clawserCommandMessage(err,expr){const raw=expr&&expr.__clawserSource;if(typeof raw!=="string"||!err||typeof ' +
      'err.message!=="string"||err.__clawserTexted||(err.__clawserText!==void 0&&String(err.__clawserText).trim()!==String(expr.' +
      'originalText).trim()))return __clawserArithMessage(err,expr&&expr.originalText);let message=err.message;const ' +
      'm=/^([^]*\\(error token is ")([^]*)("\\))$/.exec(message);if(m){const want=m[2].replace(/\\s+/g,"");let ' +
      'i=raw.length,n=0;while(i>0&&n<want.length){i--;if(!/\\s/.test(raw[i]))n++}if(want&&raw.slice(i).replace(/\\s+/g,"")' +
      '===want)message=m[1]+raw.slice(i)+m[3]}return`${raw.replace(/^\\s+/,"")}: ${message}`}',
    'function __clawserArithText(err,text,Err){if(err instanceof Err&&!err.__clawserTexted){const ' +
      'old=err.message;err.message=__clawserArithMessage(err,text),err.__clawserTexted=!0;if(err.' +
      'stderr===`bash: ${old}\\n`)err.stderr=`bash: ${err.message}\\n`}return err}',
    'function __clawserLineAbort(err,Arith,Exit){if(!(err instanceof Arith))return err;const abort=new ' +
      'Exit(1,err.stdout,err.stderr);abort.internalOutputAccounting=err.internalOutputAccounting,abort.__clawserLineAbort=!0;return ' +
      'abort}',
    '',
  ].join('\n');
  let out = source;
  for (const [, re, , replace] of edits) out = out.replace(re, /** @type {(...m: string[]) => string} */ (replace));
  return helper + out;
}

/**
 * A command whose run ends in `exit` or in an arithmetic error that ends the line — a function
 * (`f 2>/dev/null`, `f > out`), `eval`, `source` — sent what it wrote before to the terminal
 * whatever the command's redirections said: just-bash applied them to what a command returned,
 * and only `break`/`continue` got them on the way out. As in bash (and as just-bash's own
 * `{ … } 2>/dev/null` does), the output it carries now goes where the command's redirections say.
 * @param {string} source @param {string} path
 */
function patchControlFlowRedirections(source, path) {
  // withPreparedRedirections' catch: the control-flow error class, the function that routes it.
  const routed = /catch\((\w)\)\{throw!\(\1 instanceof ([\w$]+)\)\|\|!\w\|\|await ([\w$]+)\(\w,\1,\w,\w\),\1\}finally/;
  const simple = new RegExp(
    String.raw`(try\{(\w)=await this\.runCommand\([\w,!]*\)\}catch\((\w)\)\{if\(\3 instanceof [\w$]+\|\|` +
      String.raw`\3 instanceof [\w$]+\)\w=\3,\2=[\w$]+;else )(throw \3\})(?=[^]{0,300}?\2=await [\w$]+\(this\.ctx,\2,(\w)` +
      String.raw`\.redirections,(\w)\.targets,)`,
  );
  const found = source.match(routed);
  if (
    (source.match(new RegExp(routed.source, 'g'))?.length ?? 0) !== 1 ||
    !found ||
    (source.match(new RegExp(simple.source, 'g'))?.length ?? 0) !== 1
  ) {
    throw new Error(`just-bash's redirections changed; update patchControlFlowRedirections in scripts/just-bash-patches.mjs (${path})`);
  }
  const [, , flowClass, route] = found;
  return source.replace(
    simple,
    (_m, head, _r, err, _throw, node, prepared) =>
      `${head}{if(${err} instanceof ${flowClass})await ${route}(this.ctx,${err},${node}.redirections,${prepared});throw ${err}}}`,
  );
}

/**
 * `(( x / 2 ))` ran a command `x` (`x: command not found`): just-bash tells `((` arithmetic from
 * two nested subshells (`((ls /tmp) || true)`) by a look at what follows, and a word, a space
 * and a `/` read as a command and its path. A `/` followed by a space or `=` (`x / 2`,
 * `x /= 2`) is arithmetic, as in bash; `((ls /tmp) …)` is still two subshells.
 * @param {string} source @param {string} path
 */
function patchDoubleParens(source, path) {
  const look = new RegExp(
    String.raw`((\w)\[(\w)\+1\]===("\)")\)return!1;if\(\3>\w&&\((\w)==="-"\|\|\5==='"'\|\|` +
      String.raw`\5==="'"\|\|\5==="\$"\|\|\/\[a-zA-Z_\/\.\]\/\.test\(\5\))\)`,
    'g',
  );
  if ((source.match(look)?.length ?? 0) !== 1)
    throw new Error(`just-bash's (( lookahead changed; update patchDoubleParens in scripts/just-bash-patches.mjs (${path})`);
  return source.replace(look, (_m, head, input, at, _paren, c) => `${head}&&!(${c}==="/"&&/[\\s=]/.test(${input}[${at}+1]??"")))`);
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
  const body = new RegExp(
    String.raw`(async function \w+\((\w+),\w+,\w+,\w+=!1\)\{let \w+=\w+;if\(\w+\.length>0\)` +
      String.raw`\{let \w+=\w+\[0\];if\(\w+==="--"\)[^]{0,300}?bash: eval: [^]{0,300}?)try\{(let \w+=\w+\(\w+\)` +
      String.raw`;return await \2\.executeScript\(\w+\)\}catch\(\w+\)\{[^]{0,300}?\}finally\{)`,
    'g',
  );
  const error = source.match(limitError)?.[2];
  const found = source.match(body)?.length ?? 0;
  if (!error || found !== 1)
    throw new Error(
      `just-bash's eval changed (${found} found${error ? '' : ', no limit error'}); update patchEvalDepth in ` +
        `scripts/just-bash-patches.mjs (${path})`,
    );
  return `/*! ${EVAL_PATCH_MARK} */\n${source.replace(
    body,
    (_m, head, e, rest) =>
      `${head}if((${e}.state.__clawserEvalDepth=(${e}.` +
      `state.__clawserEvalDepth||0)+1)>${e}.limits.maxCallDepth){${e}.state.__clawserEvalDepth--;throw new ${error}(\`eval: maximum ` +
      `nesting depth (\${${e}.limits.maxCallDepth}) exceeded: an alias or a variable that evaluates ` +
      `itself?\`,"recursion")}try{${rest}${e}.state.__clawserEvalDepth--;`,
  )}`;
}

/**
 * A pipeline's stage stops once the stage after it has what it reads (issue 36 §2): just-bash
 * runs a pipeline's stages one after another, each to its end, so `while :; do echo; done | head`
 * ran the loop to its iteration limit and `yes | head` could not end. bash ends both at once:
 * `head` exits after its lines and the writer dies of SIGPIPE. Here, when the next stage is
 * `head` reading the pipe (`head`, `-n N`, `-N`, `-c N`, `--lines=N`, `--bytes=N`; literal words,
 * no file, no redirection), the stage runs with a bound on the scope — the lines or bytes head
 * takes — and every loop (for, C-style for, while, until) checks its own output against it before
 * each round: once it holds enough, the stage ends as bash's writer does, status 141 (128 + SIGPIPE)
 * with the output it wrote. The bound holds only where output flows into that pipe: a nested
 * pipeline's earlier stages set their own, a command substitution (another depth) and a compound
 * command's redirection (`done > file`) are out of it. The shell's `yes` reads it too
 * (web/shell/commands/text.js).
 * @param {string} source @param {string} path
 */
function patchPipeStreaming(source, path) {
  const stage = new RegExp(
    String.raw`for\(let (\w)=0;\1<(\w)\.commands\.length;\1\+\+\)\{let (\w)=\2\.commands\[\1\],([^]{0,700}?)(\w)\.executionScope\.` +
      String.raw`chargeCommand\(\),(\w)=await (\w)\(\3,(\w)\)\}catch\((\w)\)\{` +
      String.raw`if\(\9 instanceof (\w+)\)\6=\{stdout:\9\.stdout,stderr:\9\.stderr,` +
      String.raw`exitCode:1\};else if\(\9 instanceof ([\w$]+)&&\2\.commands\.length>1\)`,
  );
  const loops = new RegExp(
    String.raw`(\w+)\+\+,\1>(\w)\.limits\.maxLoopIterations&&(\w+)\(\`(for|while|until) loop: too many iterations ` +
      String.raw`\(\$\{\2\.limits\.maxLoopIterations\}\), increase executionLimits\.maxLoopIterations\`,` +
      String.raw`"iterations",(\w+)\.stdout,\5\.stderr\)`,
    'g',
  );
  const redirected = /try\{let (\w)=await (\w)\((\w)\);return await ([\w$]+)\((\w),\1,(\w),\3\.targets,/g;
  // The scope's view handed to commands: the bound, for `yes`.
  const view = new RegExp(
    String.raw`(function \w+\((\w)\)\{let (\w)=Object\.create\(null\);return Object\.defineProperties\(\3,\{)` +
      String.raw`(remainingLiveBytes:\{enumerable:!0,get:\(\)=>\2\.remainingLiveBytes\})`,
    'g',
  );
  const found = [source.match(stage) ? 1 : 0, ...[loops, redirected, view].map((re) => source.match(re)?.length ?? 0)];
  if (found.join() !== '1,4,1,1')
    throw new Error(`just-bash's pipeline or loops changed (${found.join()} found); update patchPipeStreaming (${path})`);
  const exitError = /** @type {RegExpMatchArray} */ (source.match(stage))[11];
  const helper = [
    '/*! clawser: a pipeline stage stops once `head` after it has its lines (issue 36) */',
    'function __clawserHeadBound(node,e){if(!node||node.type!=="SimpleCommand"||node.redirections?.length)return null;const ' +
      'word=w=>w&&w.parts?.length===1&&w.parts[0].type==="Literal"?w.parts[0].value:null;if(word(node.name)!=="head")return null;' +
      'const args=(node.args??[]).map(word);if(args.some(a=>a===null))return null;let lines=10,bytes=Infinity;for(let i=0;i<' +
      'args.length;i++){const a=args[i];let m;if(a==="-n"||a==="-c"){const v=args[++i];if(!/^\\d+$/.test(v??""))return null;' +
      'a==="-n"?(lines=Number(v),bytes=Infinity):(bytes=Number(v),lines=Infinity)}else if(m=/^(?:-n|--lines=|-)(\\d+)$/.exec(a))' +
      '{lines=Number(m[1]);bytes=Infinity}else if(m=/^(?:-c|--bytes=)(\\d+)$/.exec(a)){bytes=Number(m[1]);lines=Infinity}else ' +
      'if(!/^-[qvs]+$|^--(quiet|silent|verbose)$|^-$/.test(a))return null}return{lines,bytes,depth:e.substitutionDepth??0,' +
      'applies(){return(e.substitutionDepth??0)===this.depth}}}',
    'async function __clawserStage(e,t,w,run){const sc=e.executionScope;if(!sc||t.commands.length<2||w===t.commands.length-1)' +
      'return run();const prev=sc.__clawserPipe;sc.__clawserPipe=__clawserHeadBound(t.commands[w+1],e);try{return await run()}' +
      'finally{sc.__clawserPipe=prev}}',
    'async function __clawserRedirected(e,r,run){const sc=e.executionScope;if(!sc||!r?.length)return run();const prev=sc.' +
      '__clawserPipe;sc.__clawserPipe=null;try{return await run()}finally{sc.__clawserPipe=prev}}',
    'const __clawserPipeSeen=new WeakMap();',
    'function __clawserPipeFull(e,b){const w=e.executionScope?.__clawserPipe;if(!w||!b?.stdoutChunks||!w.applies())return;' +
      'let st=__clawserPipeSeen.get(b);if(!st){st={i:0,lines:0,bytes:0};__clawserPipeSeen.set(b,st)}const c=b.stdoutChunks;' +
      'for(;st.i<c.length;st.i++){const x=c[st.i];st.bytes+=x.length;for(let j=x.indexOf("\\n");j>=0;j=x.indexOf("\\n",j+1))' +
      `st.lines++}if(st.lines>=w.lines||st.bytes>=w.bytes)throw new ${exitError}(141,b.stdout,b.stderr)}`,
    '',
  ].join('\n');
  return (
    helper +
    source
      .replace(stage, (m, w, t, y, between, e, r, n, s) =>
        m.replace(`${r}=await ${n}(${y},${s})}`, `${r}=await __clawserStage(${e},${t},${w},()=>${n}(${y},${s}))}`),
      )
      .replace(loops, (m, _i, e, _os, _kind, b) => `__clawserPipeFull(${e},${b}),${m}`)
      .replace(
        redirected,
        (_m, l, r, i, fs, e, t) =>
          `try{let ${l}=await __clawserRedirected(${e},${t},()=>${r}(${i}));return await ${fs}(${e},${l},${t},${i}.targets,`,
      )
      .replace(view, (_m, head, e, _t, first) => `${head}__clawserPipe:{enumerable:!0,get:()=>${e}.__clawserPipe},${first}`)
  );
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
        return {
          contents: patchPipeStreaming(
            patchEvalDepth(
              patchDoubleParens(
                patchControlFlowRedirections(
                  patchArithmeticMessages(
                    patchArithmetic(patchRgArchives(patchGlobs(patchByteStrings(source, args.path), args.path), args.path), args.path),
                    args.path,
                  ),
                  args.path,
                ),
                args.path,
              ),
              args.path,
            ),
            args.path,
          ),
          loader: 'js',
        };
      });
    },
  };
}
