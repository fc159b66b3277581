// The tools' settings (limits, allow lists, the search endpoint, the companion extension): their
// own module, so the settings stores read them without loading every tool family (web/tools/index.js).
/** @import { ToolSettings } from './types.d.ts' */
import { z } from 'zod';

export const ToolSettingsSchema = z.object({
  maxReadBytes: z
    .number()
    .int()
    .min(1)
    .default(50 * 1024 * 1024),
  maxWriteBytes: z
    .number()
    .int()
    .min(1)
    .default(10 * 1024 * 1024),
  maxFetchChars: z.number().int().min(100).default(40_000),
  fetchAllowlist: z.array(z.string()).default([]),
  allowedPrivateHosts: z.array(z.string()).default([]),
  searchEndpoint: z.string().default(''),
  searchApiKey: z.string().default(''),
  tabSitesAllow: z.array(z.string().max(253)).max(500).default([]),
  tabSitesDeny: z.array(z.string().max(253)).max(500).default([]),
  companionId: z
    .string()
    .regex(/^([a-p]{32})?$/, 'an extension id is 32 letters a–p')
    .default(''),
});

/** @param {Partial<ToolSettings>} [partial] @returns {ToolSettings} */
export function toolSettings(partial = {}) {
  return ToolSettingsSchema.parse(partial);
}
