/**
 * Whether being offline is why an address could not be reached, and the sentence that says so.
 * Providers, git remotes, web_fetch, web_search and curl, MCP servers, skills and the model
 * download use these, so a failure while the browser is offline is named as that and not as
 * CORS or a server that is not running.
 */

/**
 * Whether a URL points at this machine or a private network (a local model server, a proxy),
 * where "nothing answered" means the server is not running, not that the internet is down.
 * @param {string} url
 */
export function isLocalAddress(url) {
  let host;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host.endsWith('.local') ||
    host === '::1' ||
    host === '0.0.0.0' ||
    /^127\./.test(host) ||
    /^10\./.test(host) ||
    /^192\.168\./.test(host) ||
    /^172\.(?:1[6-9]|2\d|3[01])\./.test(host)
  );
}

/**
 * Whether a request to `url` that just failed failed because the browser is offline: it says it
 * is (navigator.onLine false; unknown counts as online) and the address is not a local one.
 * @param {string} [url] the address requested; none: any address
 * @param {boolean} [online] default navigator.onLine, read now
 */
export function offlineExplains(url, online = globalThis.navigator?.onLine) {
  return online === false && !(url && isLocalAddress(url));
}

/**
 * The message for it: offline named first, and that it works again once reconnected.
 * @param {string} what what could not be reached ("the git server (https://…)")
 */
export function offlineMessage(what) {
  return `You are offline, so ${what} could not be reached. Reconnect and try again.`;
}
