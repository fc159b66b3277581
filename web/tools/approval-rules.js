/**
 * "Always allow", narrowed to what a call touches: a command prefix for the shell
 * (`git status`), a domain for anything that fetches a URL (`web_fetch` of docs.python.org),
 * a path glob for anything that writes a file (`fs_write notes/**`), one device the user picked
 * for the hardware tools (its identity exactly: `serial:2341:0043:1a2b3c4d`). Pure logic: the registry
 * stores the rules, the ToolRunner asks `covers` before it would ask the user.
 */
import { z } from 'zod';

/** @typedef {'command' | 'domain' | 'path' | 'device'} ScopeKind */
/**
 * @typedef {{tool: string, kind: ScopeKind, pattern: string, createdAt?: number}} ApprovalRule
 *   tool: the tool's name, or its identity when it has one (an MCP server's tool: see `policyKey`)
 */

export const ApprovalRuleSchema = z.object({
  tool: z.string().min(1).max(400),
  kind: z.enum(['command', 'domain', 'path', 'device']),
  pattern: z.string().min(1).max(500),
  createdAt: z.number().optional(),
});
export const ApprovalRulesSchema = z.array(ApprovalRuleSchema).max(500);

/**
 * What a call's arguments touch, per kind, for the rules to match. A tool can say it itself
 * (`scopeTargets`, the shell lists each command of its line, or null when a line cannot be
 * analysed); otherwise a `url` argument is a domain and a `path` argument a path.
 * @param {{scopeTargets?: (args: Record<string, unknown>, ctx?: any) => {kind: ScopeKind, targets: string[]} | null}} tool
 *   (`any`: the ToolContext, which this pure module does not need to know)
 * @param {Record<string, unknown>} args
 * @param {unknown} [ctx] the call's context (the shell looks at its session)
 * @returns {{kind: ScopeKind, targets: string[]} | null}
 */
export function scopeOf(tool, args, ctx) {
  if (tool.scopeTargets) return tool.scopeTargets(args, ctx);
  if (typeof args.url === 'string') {
    try {
      return { kind: 'domain', targets: [new URL(args.url).hostname.toLowerCase()] };
    } catch {
      return null;
    }
  }
  if (typeof args.path === 'string' && args.path) return { kind: 'path', targets: [normalizePath(args.path)] };
  if (Array.isArray(args.paths) && args.paths.length && args.paths.every((p) => typeof p === 'string' && p))
    return { kind: 'path', targets: args.paths.map((p) => normalizePath(/** @type {string} */ (p))) };
  return null;
}

/** @param {string} path */
function normalizePath(path) {
  return path
    .split('/')
    .filter((p) => p && p !== '.')
    .join('/');
}

/**
 * A glob over workspace paths: `*` and `?` within a folder name, `**` across folders.
 * @param {string} glob
 */
export function globToRegExp(glob) {
  let re = '';
  const g = normalizePath(glob);
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    if (c === '*' && g[i + 1] === '*') {
      // "a/**" matches a and everything below; "**/b" matches b in any folder.
      if (g[i + 2] === '/') {
        re += '(?:.*/)?';
        i += 2;
      } else {
        re += '.*';
        i += 1;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** @param {ApprovalRule} rule @param {string} target */
export function ruleMatches(rule, target) {
  if (rule.kind === 'device') return rule.pattern === target;
  if (rule.kind === 'command') {
    const t = target.trim().replace(/\s+/g, ' ');
    const p = rule.pattern.trim().replace(/\s+/g, ' ');
    return t === p || t.startsWith(`${p} `);
  }
  if (rule.kind === 'domain') {
    const host = target.toLowerCase();
    const d = rule.pattern.toLowerCase().replace(/^\*\./, '');
    return host === d || host.endsWith(`.${d}`);
  }
  const path = normalizePath(target);
  return globToRegExp(rule.pattern).test(path) || (rule.pattern.endsWith('/**') && path === normalizePath(rule.pattern.slice(0, -3)));
}

/**
 * Whether the user's rules cover a call: every target is matched by a rule of this tool of
 * the right kind. A call whose targets cannot be known (a shell line with a computed command
 * name) is never covered.
 * @param {ApprovalRule[]} rules @param {string} toolName @param {{kind: ScopeKind, targets: string[]} | null} scope
 */
export function rulesCover(rules, toolName, scope) {
  if (!scope || !scope.targets.length) return false;
  const mine = rules.filter((r) => r.tool === toolName && r.kind === scope.kind);
  if (!mine.length) return false;
  return scope.targets.every((t) => mine.some((r) => ruleMatches(r, t)));
}

/**
 * The narrow rule the approval dialog offers for a call: the shell's first command with its
 * subcommand (`git status`, `ls`), the URL's domain, the path's folder (`notes/**`); null when
 * the call has nothing to narrow to (or several shell commands: each needs its own yes).
 * @param {string} toolName @param {{kind: ScopeKind, targets: string[]} | null} scope
 * @returns {ApprovalRule | null}
 */
export function suggestRule(toolName, scope) {
  if (!scope || scope.targets.length !== 1) return null;
  const [target] = scope.targets;
  if (scope.kind === 'domain') return { tool: toolName, kind: 'domain', pattern: target };
  if (scope.kind === 'device') return { tool: toolName, kind: 'device', pattern: target };
  if (scope.kind === 'path') {
    const dir = target.split('/').slice(0, -1).join('/');
    return { tool: toolName, kind: 'path', pattern: dir ? `${dir}/**` : target };
  }
  const words = target.trim().split(/\s+/);
  const withSub = ['git', 'clawser', 'npm', 'docker'].includes(words[0]) && words[1] && !words[1].startsWith('-');
  return {
    tool: toolName,
    kind: 'command',
    pattern: words.slice(0, withSub ? (words[0] === 'clawser' && words[2] && !words[2].startsWith('-') ? 3 : 2) : 1).join(' '),
  };
}

/** "git status", "*.python.org", "notes/**" as the dialog and the Tools panel say it. @param {ApprovalRule} rule */
export function describeRule(rule) {
  if (rule.kind === 'command') return `commands starting with “${rule.pattern}”`;
  if (rule.kind === 'domain') return `addresses on ${rule.pattern}`;
  if (rule.kind === 'device') return `the device ${rule.pattern}`;
  return `paths matching ${rule.pattern}`;
}

/**
 * The device ids the rules name (a device re-found after a reload takes its id back: web/hardware/devices.js).
 * @param {ApprovalRule[]} rules
 */
export const deviceRuleIds = (rules) => rules.filter((r) => r.kind === 'device').map((r) => r.pattern);
