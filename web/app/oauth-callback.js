/**
 * The page an MCP server's authorization server sends the user back to (the OAuth redirect
 * URI): it hands the code (or the error) with its `state` to the Clawser tab that asked, over a
 * BroadcastChannel of this origin, and closes. Nothing is stored here.
 */
const params = new URLSearchParams(location.search);
/** @type {Record<string, string>} */
const message = {};
for (const key of ['code', 'state', 'error', 'error_description']) {
  const v = params.get(key);
  if (v !== null) message[key] = v.slice(0, 4000);
}
const statusLine = document.getElementById('status');
if (!message.state) {
  if (statusLine) statusLine.textContent = 'This page finishes a sign-in started in Clawser; there is nothing to do here.';
} else {
  const channel = new BroadcastChannel('clawser-oauth');
  channel.postMessage(message);
  channel.close();
  if (statusLine)
    statusLine.textContent = message.error
      ? `The sign-in did not finish (${message.error}). You can close this window.`
      : 'Signed in. You can close this window.';
  setTimeout(() => window.close(), 300);
}
export {};
