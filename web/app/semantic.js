/** @import { ConfigStore } from '../storage/types.d.ts' */
/** @import { MemoryStore } from '../memory/store.js' */
/** @import { SemanticProps } from '../ui/semantic-section.js' */

/** Where the embedding model is downloaded from (a mirror on corporate networks); per origin. */
const MODEL_HUB_KEY = 'clawser_model_hub';
const DEFAULT_HUB = 'https://huggingface.co';

/**
 * The page's semantic search: one embedding model for every workspace, loaded when memory is
 * first used (without an installed model, loading fails fast, makes no request, and keyword
 * search works), and the actions of the Memory panel's install section.
 */
export class SemanticSearch {
  /**
   * @type {Promise<{embedder: import('../memory/embedder.js').Embedder,
   *   ModelInstaller: typeof import('../memory/model-install.js').ModelInstaller}> | null}
   */
  #parts = null;

  /** @param {{config: ConfigStore, whenIdle: (fn: () => void) => void}} deps */
  constructor(deps) {
    this.config = deps.config;
    this.whenIdle = deps.whenIdle;
  }

  /** The shared embedder (its model is loaded when the page is idle). */
  async embedder() {
    return (await this.#load()).embedder;
  }

  #load() {
    return (this.#parts ??= Promise.all([import('../memory/embedder.js'), import('../memory/model-install.js')]).then(
      ([{ Embedder }, { ModelInstaller }]) => {
        const embedder = new Embedder();
        this.whenIdle(() => {
          embedder.load().catch(() => {});
        });
        return { embedder, ModelInstaller };
      },
    ));
  }

  /** The download source the user set, or the Hugging Face hub. */
  hubUrl() {
    const v = this.config.get(MODEL_HUB_KEY, '');
    return typeof v === 'string' && v ? v : DEFAULT_HUB;
  }

  /**
   * What the Memory panel's semantic-search section needs, for one workspace's memory.
   * @param {MemoryStore} memory @param {(err: unknown) => void} onError
   * @returns {Promise<SemanticProps>}
   */
  async sectionProps(memory, onError) {
    const { embedder, ModelInstaller } = await this.#load();
    const installer = () => new ModelInstaller({ hubUrl: this.hubUrl() });
    return {
      subscribeQueue: (fn) => memory.subscribeEmbedding(fn),
      describe: () => installer().status(),
      hubUrl: this.hubUrl(),
      onHubUrl: (url) => (url && url !== DEFAULT_HUB ? this.config.set(MODEL_HUB_KEY, url) : this.config.remove(MODEL_HUB_KEY)),
      download: async (onProgress, signal) => {
        await installer().download({ onProgress, signal });
        // An installed model is worth keeping: ask the browser not to evict this origin's data.
        navigator.storage?.persist?.().catch(() => {});
        await embedder.reload();
      },
      importFiles: async (files) => {
        await installer().importFiles(files);
        await embedder.reload();
      },
      importZip: async (zip) => {
        await installer().importZip(zip);
        await embedder.reload();
      },
      remove: async () => {
        await installer().remove();
        // Loading again finds no model: the status says semantic search is off.
        await embedder.reload().catch(() => {});
      },
      onError,
    };
  }
}
