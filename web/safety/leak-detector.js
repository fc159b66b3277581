/**
 * Last stage of the safety pipeline: finds secrets in model output and tool output (API keys
 * of the major providers, bearer tokens, private keys, JWTs, connection strings with
 * passwords) and redacts them. Pure logic.
 *
 * The one place that knows what a secret looks like: provider error messages
 * (`redactSecrets`), stored tool-call arguments and scheduled jobs use these same rules.
 */

/** @typedef {{type: string, index: number, preview: string}} LeakFinding */

/** Order matters: specific formats before generic ones. @type {{type: string, re: RegExp}[]} */
export const LEAK_RULES = [
  {
    type: 'private_key',
    re: new RegExp(
      String.raw`-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)` +
        String.raw`?-----[\s\S]*?-----END (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----`,
      'g',
    ),
  },
  { type: 'anthropic_key', re: /\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,}/g },
  { type: 'openai_key', re: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { type: 'google_api_key', re: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { type: 'aws_access_key', re: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g },
  { type: 'aws_secret_key', re: /\baws_secret_access_key\s*[=:]\s*["']?[A-Za-z0-9/+=]{40}["']?/gi },
  { type: 'github_token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/g },
  { type: 'gitlab_token', re: /\bglpat-[A-Za-z0-9_-]{20,}\b/g },
  { type: 'slack_token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g },
  { type: 'stripe_key', re: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g },
  { type: 'groq_key', re: /\bgsk_[A-Za-z0-9]{20,}\b/g },
  { type: 'xai_key', re: /\bxai-[A-Za-z0-9]{20,}\b/g },
  { type: 'huggingface_token', re: /\bhf_[A-Za-z0-9]{30,}\b/g },
  { type: 'perplexity_key', re: /\bpplx-[A-Za-z0-9]{20,}\b/g },
  { type: 'fireworks_key', re: /\bfw_[A-Za-z0-9]{20,}\b/g },
  { type: 'openrouter_key', re: /\bsk-or-v1-[a-f0-9]{40,}\b/g },
  { type: 'jwt', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g },
  {
    type: 'connection_string',
    re: /\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|sqlserver):\/\/[^\s:@/]+:[^\s@/]+@[^\s]+/gi,
  },
  { type: 'bearer_token', re: /\bBearer\s+[A-Za-z0-9._~+/=-]{20,}/gi },
  { type: 'basic_auth_url', re: /\bhttps?:\/\/[^\s:@/]+:[^\s@/]{6,}@[^\s]+/gi },
];

export class LeakDetector {
  /** @param {{rules?: {type: string, re: RegExp}[]}} [options] */
  constructor(options = {}) {
    this.rules = options.rules ?? LEAK_RULES;
  }

  /**
   * @param {string} text
   * @returns {{findings: LeakFinding[], redacted: string}}
   */
  scan(text) {
    const input = String(text ?? '');
    /** @type {{start: number, end: number, type: string}[]} */
    const spans = [];
    for (const { type, re } of this.rules) {
      re.lastIndex = 0;
      for (const m of input.matchAll(new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g'))) {
        const start = m.index ?? 0;
        const end = start + m[0].length;
        if (spans.some((s) => start < s.end && end > s.start)) continue; // inside a more specific finding
        spans.push({ start, end, type });
      }
    }
    spans.sort((a, b) => a.start - b.start);
    let redacted = '';
    let pos = 0;
    /** @type {LeakFinding[]} */
    const findings = [];
    for (const s of spans) {
      const secret = input.slice(s.start, s.end);
      findings.push({ type: s.type, index: s.start, preview: `${secret.slice(0, 4)}…(${secret.length} chars)` });
      redacted += input.slice(pos, s.start) + `[REDACTED ${s.type}]`;
      pos = s.end;
    }
    redacted += input.slice(pos);
    return { findings, redacted };
  }

  /** True when the text contains something shaped like a secret. @param {string} text */
  has(text) {
    return this.scan(text).findings.length > 0;
  }
}
