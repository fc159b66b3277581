/** @import { ConfigStore } from '../storage/types.d.ts' */
/** @import { SecretBox } from '../storage/secrets.js' */
/** @import { ProviderConfig } from '../providers/types.d.ts' */
import { z } from 'zod';
import { catalogEntry } from '../providers/catalog.js';

const SettingsSchema = z.object({
  provider: z.string(),
  model: z.string().default(''),
  baseUrl: z.string().default(''),
});
/** @typedef {z.infer<typeof SettingsSchema>} WorkspaceSettings */

export const settingsKey = (/** @type {string} */ ws) => `clawser_config_${ws}`;
/** API keys are kept per workspace and per provider, so switching providers loses no key. */
const secretKey = (/** @type {string} */ ws, /** @type {string} */ provider) => `clawser_secret_${ws}_${provider}`;

/**
 * Brings settings saved by an earlier version up to date (the same object when nothing changes):
 * the `ollama` preset spoke the OpenAI-compatible API under `/v1` and now speaks Ollama's native
 * API at the server's root, so a saved `…/v1` base URL loses its `/v1`.
 * @param {WorkspaceSettings} s
 * @returns {WorkspaceSettings}
 */
export function migrateSettings(s) {
  if (s.provider === 'ollama' && /\/v1\/?$/.test(s.baseUrl)) {
    const baseUrl = s.baseUrl.replace(/\/v1\/?$/, '');
    return { ...s, baseUrl: baseUrl === 'http://localhost:11434' ? '' : baseUrl };
  }
  return s;
}

/** @param {unknown} raw @returns {{current: WorkspaceSettings | null, migrated: boolean}} */
function readSettings(raw) {
  const parsed = SettingsSchema.safeParse(raw);
  if (!parsed.success || !catalogEntry(parsed.data.provider)) return { current: null, migrated: false };
  const current = migrateSettings(parsed.data);
  return { current, migrated: current !== parsed.data };
}

/**
 * Saved settings as stored (null, damaged or for a provider no longer in the catalog: null),
 * brought up to date by migrateSettings; writes nothing (the first view reads them this way).
 * @param {unknown} raw
 */
export const parseSettings = (raw) => readSettings(raw).current;

/** "OpenAI · gpt-4o-mini", "No provider yet": what the home screen says of a workspace's provider. @param {WorkspaceSettings | null} current */
export function providerLabel(current) {
  const entry = current ? catalogEntry(current.provider) : undefined;
  return !entry ? 'No provider yet' : entry.wire === 'echo' ? 'Echo · test provider, no AI' : `${entry.label}${current?.model ? ` · ${current.model}` : ''}`;
}

/** Per-workspace provider settings; API keys sealed by SecretBox, never stored in clear. */
export class SettingsStore {
  /** @param {{config: ConfigStore, secrets: SecretBox}} deps */
  constructor(deps) {
    this.config = deps.config;
    this.secrets = deps.secrets;
  }

  /** @param {string} workspaceId @returns {WorkspaceSettings | null} null until the user picked a provider */
  load(workspaceId) {
    const { current, migrated } = readSettings(this.config.get(settingsKey(workspaceId), null));
    if (migrated) this.config.set(settingsKey(workspaceId), current);
    return current;
  }

  /** @param {string} workspaceId @param {string} provider */
  hasKey(workspaceId, provider) {
    return this.config.get(secretKey(workspaceId, provider), null) !== null;
  }

  /**
   * @param {string} workspaceId
   * @param {WorkspaceSettings & {apiKey?: string | null}} settings apiKey: undefined keeps the saved key, null removes it
   */
  async save(workspaceId, settings) {
    const { apiKey, ...rest } = settings;
    const clean = SettingsSchema.parse(rest);
    if (apiKey === null || apiKey === '') this.config.remove(secretKey(workspaceId, clean.provider));
    else if (apiKey !== undefined) this.config.set(secretKey(workspaceId, clean.provider), await this.secrets.encrypt(apiKey.trim()));
    this.config.set(settingsKey(workspaceId), clean);
    // Saved means stored: a crash right after loses none of it (nor what was changed before).
    await this.config.flush();
  }

  /** Saves (sealed) the key of one provider of the workspace, e.g. a fallback's. @param {string} workspaceId @param {string} provider @param {string} apiKey */
  async saveKey(workspaceId, provider, apiKey) {
    if (!catalogEntry(provider)) throw new Error(`Unknown provider "${provider}".`);
    this.config.set(secretKey(workspaceId, provider), await this.secrets.encrypt(apiKey.trim()));
    await this.config.flush();
  }

  /** The full provider configuration, key decrypted, for createProvider. @param {string} workspaceId @returns {Promise<ProviderConfig | null>} */
  async providerConfig(workspaceId) {
    const s = this.load(workspaceId);
    if (!s) return null;
    return { provider: s.provider, model: s.model || undefined, baseUrl: s.baseUrl || undefined, apiKey: await this.apiKey(workspaceId, s.provider) };
  }

  /** @param {string} workspaceId @param {string} provider @returns {Promise<string | undefined>} */
  async apiKey(workspaceId, provider) {
    const sealed = this.config.get(secretKey(workspaceId, provider), null);
    return typeof sealed === 'string' ? this.secrets.decrypt(sealed) : undefined;
  }

  /** Removes every setting and key of a workspace. @param {string} workspaceId */
  forget(workspaceId) {
    this.config.remove(settingsKey(workspaceId));
    for (const k of this.config.keys(`clawser_secret_${workspaceId}_`)) this.config.remove(k);
  }
}
