// "Through my relay": a provider or MCP server whose requests go through the HTTP relay of one of
// the user's own machines (wsh-server's --relay-allow; see web/packages/wsh/README.md), for
// servers that send no CORS headers. Settings name the machine; the app turns the name into a
// fetch (RemoteMachines.relayFetch) that providers and the MCP client are given. A leaf module:
// the name's rule and the error, shared by the settings, the configuration and the transports.
import { z } from 'zod';

/** A machine's name (the Remote panel's rule). */
export const MACHINE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;

/** The machine whose relay a provider or MCP server goes through; absent: direct. */
export const RelaySchema = z.string().regex(MACHINE_NAME, 'the name of one of your machines (the Remote panel), or nothing for direct');

/** A request through a machine's relay that did not get an answer: the words say which machine and why. */
export class RelayError extends Error {
  /** @param {string} message @param {{cause?: unknown}} [options] */
  constructor(message, options) {
    super(message, options);
    this.name = 'RelayError';
    this.code = 'relay';
  }
}
