// @clawser/wsh — the web shell: run commands, terminals and file transfers on your own machine
// from a browser (or Node), and relay HTTP through it, signed in with an Ed25519 key.
// Browser entry: import this file. Node: import '@clawser/wsh' (node.js, which adds `ws`);
// the server is '@clawser/wsh/server'. API.md documents every export.
export { WshClient, WshProcess, setDefaultWebSocket } from './client.js';
export {
  generateKey,
  loadKey,
  publicKeyLine,
  publicKeyBlob,
  parsePublicKeyLine,
  rawPublicKey,
  MemoryKeyStore,
  IndexedDbKeyStore,
  defaultKeyStore,
} from './keys.js';
export { WshError, WshProtocolError, WshRefusedError, WshMcpError, ERROR_CODES } from './errors.js';
export { PROTOCOL_VERSION, encodeFrame, decodeFrame, FRAME_TYPES, SIGNALS, MCP_METHODS } from './protocol.js';
export { chooseTransport } from './transport.js';
