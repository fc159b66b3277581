/** @import { ToolUi } from '../tools/types.d.ts' */
/** @import { ArtifactDocument } from './artifact.js' */

/**
 * The browser services tools may use, provided by the page. Dialogs come from the UI layer
 * through callbacks; nothing here reaches into the DOM of Clawser's interface except the
 * screenshot, which captures it on purpose.
 * @implements {ToolUi}
 */
export class AppToolUi {
  /**
   * @param {{artifact: ArtifactDocument, askUser: (question: string, choices?: string[]) => Promise<string | null>, screenshotTarget: () =>
   *   HTMLElement, pickDevice?: <T>(question: string, request: () => Promise<T>) => Promise<T | null>}} deps
   */
  constructor(deps) {
    this.artifact = deps.artifact;
    this.askUserDialog = deps.askUser;
    if (deps.pickDevice) this.pickDevice = deps.pickDevice;
    this.screenshotTarget = deps.screenshotTarget;
  }

  /** @param {string} question @param {{choices?: string[]}} [options] */
  askUser(question, options = {}) {
    return this.askUserDialog(question, options.choices);
  }

  /** @param {string} title @param {string} body @returns {Promise<'shown' | 'denied' | 'unsupported'>} */
  async notify(title, body) {
    if (typeof Notification === 'undefined') return 'unsupported';
    let permission = Notification.permission;
    if (permission === 'default') permission = await Notification.requestPermission();
    if (permission !== 'granted') return 'denied';
    new Notification(title, { body, icon: './icons/icon-192.png' });
    return 'shown';
  }

  /** @param {string} url */
  openTab(url) {
    const a = document.createElement('a');
    a.href = url;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    a.click();
    return true;
  }

  clipboardRead() {
    return navigator.clipboard.readText();
  }

  /** @param {string} text */
  clipboardWrite(text) {
    return navigator.clipboard.writeText(text);
  }

  screenInfo() {
    return {
      screen: {
        width: screen.width,
        height: screen.height,
        availWidth: screen.availWidth,
        availHeight: screen.availHeight,
        colorDepth: screen.colorDepth,
      },
      window: { innerWidth, innerHeight },
      devicePixelRatio,
      colorScheme: matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light',
      reducedMotion: matchMedia('(prefers-reduced-motion: reduce)').matches,
      language: navigator.language,
      languages: [...navigator.languages],
      online: navigator.onLine,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      standalone: matchMedia('(display-mode: standalone)').matches,
    };
  }

  async screenshot() {
    const { default: html2canvas } = await import('html2canvas');
    const target = this.screenshotTarget();
    const canvas = await html2canvas(target, {
      backgroundColor: getComputedStyle(document.body).backgroundColor,
      logging: false,
      useCORS: false,
      scale: Math.min(devicePixelRatio, 2),
    });
    return { dataUrl: canvas.toDataURL('image/png'), width: canvas.width, height: canvas.height };
  }
}
