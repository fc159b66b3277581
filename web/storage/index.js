export { StorageError, isQuotaError, QUOTA_MESSAGE } from './errors.js';
export { MemoryFileSystem } from './memory-fs.js';
export { OpfsFileSystem } from './opfs-fs.js';
export { LocalConfig } from './local-config.js';
export { DurableConfig, ConfigError, STATE_FOLDER } from './durable-config.js';
export { SecretBox } from './secrets.js';
export { readTextIfExists, writeJson } from './file-helpers.js';
