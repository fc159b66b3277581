/** @import { ToolDefinition, ToolContext, ToolFamily } from './types.d.ts' */
import { z } from 'zod';
import { PageStorage } from '../storage/page-storage.js';

const Key = z.string().min(1).max(256);
/** The context's page storage (tests give their own), else the page's localStorage. @param {ToolContext} ctx */
const storage = (ctx) => ctx.pageStorage ?? new PageStorage();

/** @type {ToolDefinition} */
export const storageGet = {
  name: 'storage_get',
  description: "Read a value from the browser's key-value storage (localStorage). Clawser's own clawser_* keys are not accessible.",
  permission: 'read',
  readOnly: true,
  schema: z.object({ key: Key }),
  async run({ key }, /** @type {ToolContext} */ ctx) {
    if (PageStorage.isReserved(key))
      return { ok: false, output: 'Keys starting with "clawser_" belong to Clawser and cannot be read by tools.' };
    const v = storage(ctx).get(key);
    return v === null ? { ok: false, output: `No value stored under "${key}".` } : { ok: true, output: v };
  },
};

/** @type {ToolDefinition} */
export const storageSet = {
  name: 'storage_set',
  description:
    "Store a string value in the browser's key-value storage (localStorage) under a key. Clawser's own clawser_* keys are refused.",
  permission: 'write',
  schema: z.object({ key: Key, value: z.string().max(1_000_000) }),
  async run({ key, value }, /** @type {ToolContext} */ ctx) {
    if (PageStorage.isReserved(key))
      return { ok: false, output: 'Keys starting with "clawser_" belong to Clawser and cannot be written by tools.' };
    try {
      storage(ctx).set(key, value);
    } catch (err) {
      const error = /** @type {Error} */ (err);
      const why = error.name === 'QuotaExceededError' ? 'browser storage is full' : error.message;
      return { ok: false, output: `Could not store "${key}": ${why}.` };
    }
    return { ok: true, output: `Stored "${key}" (${value.length} characters).` };
  },
};

/** @type {ToolDefinition} */
export const storageList = {
  name: 'storage_list',
  description: "List the keys in the browser's key-value storage (localStorage), except Clawser's own.",
  permission: 'read',
  readOnly: true,
  schema: z.object({}),
  async run(_args, /** @type {ToolContext} */ ctx) {
    const keys = storage(ctx).keys();
    return { ok: true, output: keys.length ? keys.join('\n') : 'No keys stored.' };
  },
};

export const STORAGE_TOOLS = [storageGet, storageSet, storageList];

/** @type {ToolFamily} */
export const family = { id: 'storage', tools: STORAGE_TOOLS };
