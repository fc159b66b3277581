/** @import { NoKeyOptions } from '../providers/discovery.js' */
import { h } from './dom.js';

/**
 * Shown in a workspace with no provider yet: what this machine offers without a key,
 * and the way to add one. A newcomer never faces an empty chat that errors.
 * @param {{options: NoKeyOptions | null, describeChromeAI: (state: string) => string, onChoose: (choice: {provider: string, model?: string}) => void, onAddKey: () => void}} props
 *   describeChromeAI: Chrome's built-in AI state in words
 */
export function FirstRunCard({ options, describeChromeAI, onChoose, onAddKey }) {
  /** @param {string} label @param {boolean | null} ok @param {string} detail @param {HTMLElement | null} action */
  const item = (label, ok, detail, action) =>
    h('li', { class: 'option' },
      h('span', { class: `dot ${ok === null ? 'pending' : ok ? 'yes' : 'no'}`, 'aria-hidden': 'true' }),
      h('div', null, h('strong', null, label), h('p', { class: 'muted small' }, detail)),
      action,
    );
  const checking = options === null;
  const chrome = options?.chromeAI;
  const chromeUsable = chrome === 'available' || chrome === 'downloadable' || chrome === 'downloading';
  return h('section', { class: 'card first-run', 'aria-labelledby': 'fr-title' },
    h('h2', { id: 'fr-title' }, 'Choose how Clawser thinks'),
    h('p', null, 'Pick a model provider for this workspace. These options need no API key on this machine:'),
    h('ul', { class: 'options', 'aria-busy': checking ? 'true' : 'false' },
      item('Chrome built-in AI', checking ? null : chromeUsable, checking ? 'Checking…' : describeChromeAI(chrome ?? 'unsupported'),
        chromeUsable ? h('button', { type: 'button', on: { click: () => onChoose({ provider: 'chrome-ai' }) } }, 'Use Chrome built-in AI') : null),
      item('Ollama on this computer', checking ? null : !!options?.ollama.found,
        checking ? 'Looking on localhost:11434…' : options?.ollama.found ? `Found, with ${options.ollama.models.length || 'no'} model${options.ollama.models.length === 1 ? '' : 's'}${options.ollama.models.length ? ': ' + options.ollama.models.slice(0, 3).join(', ') : ' — run `ollama pull llama3.2`'}.` : 'Not found on localhost:11434. Install it from ollama.com to run models locally.',
        options?.ollama.found ? h('button', { type: 'button', on: { click: () => onChoose({ provider: 'ollama', model: options.ollama.models[0] }) } }, 'Use Ollama') : null),
      item('LM Studio on this computer', checking ? null : !!options?.lmstudio.found,
        checking ? 'Looking on localhost:1234…' : options?.lmstudio.found ? `Found${options.lmstudio.models.length ? ': ' + options.lmstudio.models.slice(0, 3).join(', ') : ''}.` : 'Not found on localhost:1234 (start its local server to use it).',
        options?.lmstudio.found ? h('button', { type: 'button', on: { click: () => onChoose({ provider: 'lmstudio', model: options.lmstudio.models[0] }) } }, 'Use LM Studio') : null),
      item('Echo (test provider)', true, 'Repeats what you type. No AI — useful to try the app offline.',
        h('button', { type: 'button', class: 'secondary', on: { click: () => onChoose({ provider: 'echo' }) } }, 'Try Echo')),
    ),
    h('div', { class: 'row' },
      h('button', { type: 'button', on: { click: onAddKey } }, 'Add an API key'),
      h('span', { class: 'muted small' }, 'OpenAI, Anthropic, Groq, OpenRouter, Mistral and more.'),
    ),
  );
}
