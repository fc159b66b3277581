#!/usr/bin/env node
// Packs web/packages/wsh (npm pack) into web/vendor/wsh-server.tgz, which the app serves, so a
// machine without a clone of Clawser runs the server with
//   npx --yes --package=<app origin>/web/vendor/wsh-server.tgz wsh-server --key "ssh-ed25519 …"
// (npx installs its two dependencies, ws and zod, from the registry, and the optional node-pty for
// a real terminal where its native build succeeds; pipes where it does not). Run by scripts/vendor.mjs;
// web/vendor is generated, and the precache list leaves the .tgz out (only the browser's files).
import { execFile } from 'node:child_process';
import { mkdir, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const WSH_PACKAGE_DIR = join(root, 'web', 'packages', 'wsh');
export const WSH_TGZ_NAME = 'wsh-server.tgz';

/**
 * Packs the wsh package into `dest/wsh-server.tgz`.
 * @param {string} [dest] default web/vendor
 * @returns {Promise<string>} the path of the .tgz
 */
export async function packWsh(dest = join(root, 'web', 'vendor')) {
  await mkdir(dest, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const { stdout } = await promisify(execFile)(npm, ['pack', '--json', '--pack-destination', dest], {
    cwd: WSH_PACKAGE_DIR,
    env: { ...process.env, npm_config_ignore_scripts: 'true' },
  });
  const [{ filename }] = JSON.parse(stdout);
  const out = join(dest, WSH_TGZ_NAME);
  await rename(join(dest, filename), out);
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(await packWsh(process.argv[2]));
}
