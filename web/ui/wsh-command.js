// The command a person runs on their machine to start the wsh server for Clawser (Remote panel).

/** Hosts whose pages wsh-server accepts without --origins (its DEFAULT_ORIGINS). */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A double-quoted shell word. @param {string} text */
const quoted = (text) => `"${text.replace(/["$`\\]/g, (c) => `\\${c}`)}"`;

/**
 * The command that starts the wsh server on a machine without a clone of Clawser: npx fetches the
 * server's tarball from this app (web/vendor/wsh-server.tgz, made by the install step), on the
 * port of the machine's URL, with this browser's key for the machine; an app served from another
 * host than localhost adds its origin to --origins (the server accepts local pages only).
 * @param {{appUrl: string, keyLine: string, machineUrl: string}} o appUrl: the app's base URL (document.baseURI)
 */
export function serverCommand({ appUrl, keyLine, machineUrl }) {
  const app = new URL(appUrl);
  const tgz = new URL('web/vendor/wsh-server.tgz', app).href;
  const port = new URL(machineUrl).port;
  const words = ['npx', '--yes', `--package=${tgz}`, 'wsh-server'];
  if (port) words.push('--port', port);
  if (!LOCAL_HOSTS.has(app.hostname)) words.push('--origins', app.origin);
  words.push('--key', quoted(keyLine));
  return words.join(' ');
}
