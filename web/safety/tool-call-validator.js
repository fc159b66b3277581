/**
 * Second stage of the safety pipeline: checks a tool call's arguments before it runs —
 * path traversal (including encoded and look-alike Unicode forms), access to internal or
 * secret folders, dangerous shell patterns, blocked URL schemes and requests to private,
 * loopback or link-local addresses (unless allow-listed). Pure logic.
 */

import { PROTECTED_SEGMENTS } from '../storage/workspace-folders.js';

/** Argument names treated as paths / URLs / shell commands. */
const PATH_KEYS = new Set(['path', 'paths', 'from', 'to', 'file', 'dir', 'directory', 'target', 'source', 'destination']);
const URL_KEYS = new Set(['url', 'href', 'uri', 'endpoint']);
const SHELL_KEYS = new Set(['command', 'cmd', 'script']);

/** @type {{rule: string, re: RegExp}[]} */
export const SHELL_RULES = [
  {
    rule: 'recursive_delete_root',
    re: /\brm\s+(-[a-zA-Z]*[rR][a-zA-Z]*\s+-?[a-zA-Z]*\s*|-[a-zA-Z]*\s+)*(--no-preserve-root\s+)?(\/\*?|~\/?|\$HOME\/?|\*)(\s|$|;)/,
  },
  { rule: 'chained_rm', re: /(;|&&|\|\||\|)\s*rm\s+-/ },
  {
    rule: 'pipe_to_shell',
    re: new RegExp(
      String.raw`\b(curl|wget|fetch|iwr|Invoke-WebRequest)\b[^|;]*\|\s*(sudo\s+)?(ba|z|k|da|c|` +
        String.raw`tc)?sh\b|\b(curl|wget)\b[^|;]*\|\s*(python3?|perl|ruby|node)\b`,
      'i',
    ),
  },
  { rule: 'decode_to_shell', re: /\bbase64\s+(-d|--decode)\b[^|;]*\|\s*(ba|z)?sh\b/ },
  { rule: 'command_substitution', re: /\$\([^)]*\)|`[^`]*`/ },
  { rule: 'fork_bomb', re: /:\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;?\s*:/ },
  { rule: 'disk_wipe', re: /\bmkfs(\.\w+)?\b|\bdd\s+if=.*\bof=\/dev\/|\bshred\s+.*\/dev\/|>\s*\/dev\/(sd[a-z]|nvme|hd[a-z]|disk)/ },
  { rule: 'world_writable_root', re: /\bchmod\s+(-R\s+)?0?777\s+\/(\s|$)/ },
  { rule: 'eval_remote', re: /\beval\s+["']?\$\(\s*(curl|wget)/ },
  { rule: 'reverse_shell', re: /\/dev\/tcp\/|\bnc\s+(-[a-z]*e|.*\s-e\s)|\bbash\s+-i\s+>&/ },
  { rule: 'sudo', re: /(^|[;&|]\s*)sudo\s/ },
];

const BLOCKED_SCHEMES = [
  'file:',
  'data:',
  'javascript:',
  'blob:',
  'vbscript:',
  'filesystem:',
  'chrome:',
  'chrome-extension:',
  'about:',
  'view-source:',
  'ftp:',
  'ws:',
  'wss:',
  'jar:',
];

/** Overlong UTF-8 spellings (2, 3 and 4 bytes) of ".", "/" and "\\" — traversal in disguise. */
const OVERLONG = /%c0%(?:ae|af)|%c1%9c|%e0%80%(?:ae|af)|%e0%81%9c|%f0%80%80%(?:ae|af)|%f0%80%81%9c/gi;
/** @type {Record<string, string>} the last byte of an overlong form → the character */
const OVERLONG_CHARS = { ae: '.', af: '/', '9c': '\\' };

/**
 * Decodes percent-encoding repeatedly (double-encoding is a classic bypass) and normalises
 * look-alike Unicode (full-width dots and slashes) with NFKC.
 * @param {string} value
 */
export function normalizePathForCheck(value) {
  let v = String(value);
  for (let i = 0; i < 4; i++) {
    let next;
    try {
      next = decodeURIComponent(v);
    } catch {
      // Invalid UTF-8 (e.g. overlong forms like %c0%ae, which old decoders read as ".") does
      // not decode: map the path characters in every spelling and keep decoding what is left.
      next = v
        .replace(OVERLONG, (m) => OVERLONG_CHARS[m.toLowerCase().replace(/%/g, '').slice(-2)] ?? m)
        .replace(/%2e/gi, '.')
        .replace(/%2f/gi, '/')
        .replace(/%5c/gi, '\\');
    }
    if (next === v) break;
    v = next;
  }
  return v
    .normalize('NFKC')
    .replace(/[\u2024\u2025\u2026\uFE52\uFF0E]/g, '.') // one-dot leader, two-dot leader, ellipsis, small/fullwidth full stop
    .replace(/[\u2215\u2044\uFF0F\u29F8]/g, '/')
    .replace(/[\uFF3C\u2216\u29F9]/g, '\\');
}

/**
 * @param {string} raw
 * @returns {string | null} reason, or null when the path is acceptable
 */
export function checkPath(raw) {
  if (typeof raw !== 'string') return 'A path must be a string.';
  const v = normalizePathForCheck(raw);
  if (/[\0-\x1f]/.test(v)) return 'The path contains control characters.';
  if (v.includes('\\')) return 'Backslashes are not allowed in paths; use "/".';
  if (/^[a-zA-Z]:/.test(v) || v.startsWith('~')) return 'Only paths inside the workspace are allowed.';
  const segments = v.split('/').filter(Boolean);
  if (segments.some((s) => s === '..' || /^\.{3,}$/.test(s)))
    return 'Path traversal ("..") is not allowed: paths must stay inside the workspace.';
  const hit = segments.find((s) => PROTECTED_SEGMENTS.includes(s.toLowerCase()));
  if (hit) return `"${hit}" is a protected folder (Clawser's own data or secrets); tools cannot read or change it.`;
  return null;
}

/**
 * Rules that do not apply to Clawser's own shell: its command substitutions run the same
 * gated commands as the rest of the line (there is no system shell behind it).
 */
const VIRTUAL_SHELL_EXEMPT = new Set(['command_substitution']);

/**
 * @param {string} command
 * @param {{virtual?: boolean}} [options] virtual: a line for Clawser's shell tool
 * @returns {string | null}
 */
export function checkShell(command, options = {}) {
  const v = String(command).normalize('NFKC');
  for (const { rule, re } of SHELL_RULES)
    if (!(options.virtual && VIRTUAL_SHELL_EXEMPT.has(rule)) && re.test(v))
      return `The command matches a dangerous pattern (${rule}) and was blocked.`;
  return null;
}

/** @param {string} host IPv4 dotted quad */
function privateIPv4(host) {
  const p = host.split('.').map(Number);
  if (p.length !== 4 || p.some((n) => !Number.isInteger(n) || n < 0 || n > 255)) return false;
  const [a, b] = p;
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

/** @param {string} hostname as given by URL (IPv6 in brackets) */
export function isPrivateHost(hostname) {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  if (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    h.endsWith('.local') ||
    h.endsWith('.internal') ||
    h.endsWith('.lan') ||
    h.endsWith('.home.arpa')
  )
    return true;
  if (h === 'metadata.google.internal' || h === 'metadata') return true;
  if (/^\d+\.\d+\.\d+\.\d+$/.test(h)) return privateIPv4(h);
  if (h.startsWith('[')) {
    const v6 = h.slice(1, -1);
    if (v6 === '::1' || v6 === '::') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v6);
    if (mapped) return privateIPv4(mapped[1]);
    const mappedHex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
    if (mappedHex) {
      const n = (parseInt(mappedHex[1], 16) << 16) | parseInt(mappedHex[2], 16);
      return privateIPv4([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.'));
    }
    return /^f[cd][0-9a-f]{2}:/.test(v6) || /^fe[89ab][0-9a-f]:/.test(v6) || /^ff[0-9a-f]{2}:/.test(v6);
  }
  return false;
}

/**
 * @param {string} raw
 * @param {{allowedPrivateHosts?: string[]}} options
 * @returns {string | null}
 */
export function checkUrl(raw, options = {}) {
  if (typeof raw !== 'string') return 'A URL must be a string.';
  const trimmed = raw.trim().replace(/[\0-\x20]/g, '');
  let url;
  try {
    url = new URL(trimmed);
  } catch {
    return `"${raw.slice(0, 100)}" is not a valid absolute URL (it must start with http:// or https://).`;
  }
  if (BLOCKED_SCHEMES.includes(url.protocol)) return `The URL scheme "${url.protocol}" is blocked; only http and https are allowed.`;
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `The URL scheme "${url.protocol}" is not allowed; only http and https are.`;
  if (url.username || url.password) return 'URLs with embedded credentials are not allowed.';
  const allowed = (options.allowedPrivateHosts ?? []).map((h) => h.toLowerCase());
  if (isPrivateHost(url.hostname) && !allowed.includes(url.hostname.toLowerCase()) && !allowed.includes(url.host.toLowerCase())) {
    return `Requests to private, loopback or link-local addresses (${url.hostname}) are blocked unless allow-listed in settings.`;
  }
  return null;
}

export class ToolCallValidator {
  /** @param {{allowedPrivateHosts?: string[]}} [options] */
  constructor(options = {}) {
    this.options = options;
  }

  /**
   * Checks every path-, URL- and command-like argument of a call, at any depth.
   * @param {string} toolName
   * @param {Record<string, unknown>} args
   * @param {{shell?: boolean}} [tool] shell: the tool runs lines of Clawser's shell (it declares
   *   `runsCode: 'bash'`): its `input` is a line too, checked as the virtual shell's
   * @returns {{ok: true} | {ok: false, reason: string}}
   */
  validate(toolName, args, tool = {}) {
    const shell = tool.shell === true;
    /** @type {string | null} */
    let reason = null;
    /** @param {unknown} value @param {string} key */
    const visit = (value, key) => {
      if (reason) return;
      if (typeof value === 'string') {
        if (PATH_KEYS.has(key) || (toolName.startsWith('fs_') && key === 'name')) reason = checkPath(value);
        else if (URL_KEYS.has(key)) reason = checkUrl(value, this.options);
        else if (SHELL_KEYS.has(key) || (shell && key === 'input')) reason = checkShell(value, { virtual: shell });
      } else if (Array.isArray(value)) {
        for (const v of value) visit(v, key);
      } else if (value && typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) visit(v, k.toLowerCase());
      }
    };
    visit(args ?? {}, '');
    return reason ? { ok: false, reason } : { ok: true };
  }
}
