/** @import { ConfigStore } from '../storage/types.d.ts' */
/** @import { SecretBox } from '../storage/secrets.js' */
/** @import { ProviderConfig, LocalFinding, SetupTexts } from '../providers/types.d.ts' */
/** @import { SetupChoice } from '../ui/types.d.ts' */
import { z } from 'zod';
import { CATALOG, alwaysThere, catalogEntry, wireDeclaration } from '../providers/catalog.js';
import { RelaySchema } from '../net/relay.js';

const SettingsSchema = z.object({
  provider: z.string(),
  model: z.string().default(''),
  baseUrl: z.string().default(''),
  /** "Through my relay": the machine whose wsh relay the provider's requests go through; absent: direct. */
  relay: RelaySchema.optional(),
});
/** @typedef {z.infer<typeof SettingsSchema>} WorkspaceSettings */

export const settingsKey = (/** @type {string} */ ws) => `clawser_config_${ws}`;
/** API keys are kept per workspace and per provider, so switching providers loses no key. */
const secretKey = (/** @type {string} */ ws, /** @type {string} */ provider) => `clawser_secret_${ws}_${provider}`;

/**
 * Brings settings saved by an earlier version up to date (the same object when nothing changes):
 * a wire whose address moved says how a saved base URL changes (its `migrateBaseUrl` — Ollama's
 * preset spoke the OpenAI-compatible API under `/v1`, now Ollama's native API at the root).
 * @param {WorkspaceSettings} s
 * @returns {WorkspaceSettings}
 */
export function migrateSettings(s) {
  const entry = catalogEntry(s.provider);
  const migrate = entry && wireDeclaration(entry.wire)?.migrateBaseUrl;
  const baseUrl = migrate ? migrate(s.baseUrl) : s.baseUrl;
  return baseUrl === s.baseUrl ? s : { ...s, baseUrl };
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

/**
 * "OpenAI · gpt-4o-mini", "No provider yet": what the home screen says of a workspace's provider.
 * @param {WorkspaceSettings | null} current
 */
export function providerLabel(current) {
  const entry = current ? catalogEntry(current.provider) : undefined;
  if (!entry) return 'No provider yet';
  if (entry.capabilities.test) return `${entry.label} · test provider, no AI`;
  return `${entry.label}${current?.model ? ` · ${current.model}` : ''}`;
}

/**
 * What the first-run card offers: every local provider (what needs no key on this machine), test
 * providers last, each as its registry entry words it — while it is looked for (`findings`
 * null), then as found. A provider running in the page with nothing to ask is there at once.
 * @param {LocalFinding[] | null} findings
 * @returns {SetupChoice[]}
 */
export function setupChoices(findings) {
  const local = CATALOG.filter((e) => e.capabilities.local && e.setup);
  return [...local.filter((e) => !e.capabilities.test), ...local.filter((e) => e.capabilities.test)].map((e) => {
    const setup = /** @type {SetupTexts} */ (e.setup);
    const found = alwaysThere(e) ? { provider: e.id, found: true, models: [] } : findings?.find((f) => f.provider === e.id);
    const base = { provider: e.id, title: setup.title, action: setup.action, test: e.capabilities.test };
    const setUp = setup.setUpAction ? { setUpAction: setup.setUpAction } : {};
    if (!found) return { ...base, usable: findings ? false : null, detail: findings ? (setup.missing ?? '') : setup.checking, ...setUp };
    const said = found.found ? setup.found : setup.missing;
    const detail = found.text ?? (typeof said === 'function' ? said(found.models) : (said ?? ''));
    if (!found.found) return { ...base, usable: false, detail, ...setUp };
    return { ...base, usable: true, detail, ...(found.models[0] ? { model: found.models[0] } : {}) };
  });
}

/**
 * The names of the services an API key opens, for the first-run card, as the registry lists them.
 * @returns {string[]}
 */
export function keyProviderNames() {
  // One name per service: OpenAI's Responses API is OpenAI again (the same base URL).
  const seen = new Set();
  return CATALOG.filter((e) => e.capabilities.key === 'required' && !seen.has(e.baseUrl) && seen.add(e.baseUrl)).map((e) => e.label);
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

  /**
   * Saves (sealed) the key of one provider of the workspace, e.g. a fallback's.
   * @param {string} workspaceId
   * @param {string} provider
   * @param {string} apiKey
   */
  async saveKey(workspaceId, provider, apiKey) {
    if (!catalogEntry(provider)) throw new Error(`Unknown provider "${provider}".`);
    this.config.set(secretKey(workspaceId, provider), await this.secrets.encrypt(apiKey.trim()));
    await this.config.flush();
  }

  /**
   * The full provider configuration, key decrypted, for createProvider.
   * @param {string} workspaceId
   * @returns {Promise<ProviderConfig | null>}
   */
  async providerConfig(workspaceId) {
    const s = this.load(workspaceId);
    if (!s) return null;
    return {
      provider: s.provider,
      model: s.model || undefined,
      baseUrl: s.baseUrl || undefined,
      apiKey: await this.apiKey(workspaceId, s.provider),
      ...(s.relay ? { relay: s.relay } : {}),
    };
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
