/** @import { InputFlag } from './input-sanitizer.js' */
/** @import { LeakFinding } from './leak-detector.js' */
import { InputSanitizer } from './input-sanitizer.js';
import { ToolCallValidator } from './tool-call-validator.js';
import { LeakDetector } from './leak-detector.js';

/** @typedef {'redact' | 'warn' | 'block'} LeakAction */

/**
 * The three stages in one object, as the agent uses them. Turning it off takes two steps
 * (`confirmDisable()` then `setEnabled(false)`), so no single call — by a bug, a plugin or a
 * model-controlled path — can silently switch it off.
 */
export class SafetyPipeline {
  #enabled = true;
  #disableConfirmed = false;

  /** @param {{leakAction?: LeakAction, allowedPrivateHosts?: string[]}} [options] */
  constructor(options = {}) {
    this.sanitizer = new InputSanitizer();
    this.validator = new ToolCallValidator({ allowedPrivateHosts: options.allowedPrivateHosts });
    this.detector = new LeakDetector();
    /** @type {LeakAction} */
    this.leakAction = options.leakAction ?? 'redact';
  }

  get enabled() {
    return this.#enabled;
  }

  /** First step of turning the pipeline off. */
  confirmDisable() {
    this.#disableConfirmed = true;
  }

  /** @param {boolean} on */
  setEnabled(on) {
    if (!on && !this.#disableConfirmed) throw new Error('Turning the safety pipeline off needs confirmDisable() first.');
    this.#enabled = on;
    this.#disableConfirmed = false;
  }

  /** @param {string} text @returns {{text: string, flags: InputFlag[]}} */
  checkInput(text) {
    if (!this.#enabled) return { text, flags: [] };
    const { text: t, flags } = this.sanitizer.sanitize(text);
    return { text: t, flags };
  }

  /** @param {string} text @param {string} source @returns {{text: string, flags: InputFlag[]}} */
  checkToolResult(text, source) {
    if (!this.#enabled) return { text, flags: [] };
    const cleaned = this.sanitizer.sanitizeUntrusted(text, source);
    const leaks = this.detector.scan(cleaned.text);
    return { text: leaks.findings.length ? leaks.redacted : cleaned.text, flags: cleaned.flags };
  }

  /**
   * @param {string} toolName @param {Record<string, unknown>} args
   * @param {{shell?: boolean}} [tool] what the tool declares that the checks depend on (ToolCallValidator.validate)
   */
  checkToolCall(toolName, args, tool) {
    if (!this.#enabled) return /** @type {{ok: true}} */ ({ ok: true });
    return this.validator.validate(toolName, args, tool);
  }

  /**
   * @param {string} text model output
   * @returns {{text: string, findings: LeakFinding[], action: LeakAction | null}}
   */
  checkOutput(text) {
    if (!this.#enabled) return { text, findings: [], action: null };
    const { findings, redacted } = this.detector.scan(text);
    if (findings.length === 0) return { text, findings, action: null };
    if (this.leakAction === 'warn') return { text, findings, action: 'warn' };
    if (this.leakAction === 'block') return { text: '[Reply withheld: it contained what looks like a secret.]', findings, action: 'block' };
    return { text: redacted, findings, action: 'redact' };
  }
}
