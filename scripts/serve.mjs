#!/usr/bin/env node
// `npm start`: serves the app as static files on 127.0.0.1 (HOST/PORT override).
import { startServer } from './static-server.mjs';

const host = process.env.HOST || '127.0.0.1';
const port = Number(process.env.PORT ?? 8080);
const server = await startServer({ host, port });
const addr = /** @type {import('node:net').AddressInfo} */ (server.address());
const shownHost = addr.address.includes(':') ? `[${addr.address}]` : addr.address;
console.log(`Clawser is running at http://${shownHost}:${addr.port}/`);
if (!['127.0.0.1', 'localhost', '::1'].includes(host)) {
  console.log('Note: offline mode and storage need a secure context; open it via http://localhost or serve it over https.');
}
