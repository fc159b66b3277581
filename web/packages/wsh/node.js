// The Node entry of @clawser/wsh: the same API as index.js, with the `ws` package as the
// WebSocket (Node 20 has none built in). Keys live in a MemoryKeyStore unless you pass a store.
import WebSocket from 'ws';
import { setDefaultWebSocket } from './client.js';

setDefaultWebSocket(/** @type {import('./transport.js').WebSocketConstructor} */ (/** @type {unknown} */ (WebSocket)));

export * from './index.js';
