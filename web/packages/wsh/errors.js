// The one error class of wsh: every failure a caller can act on carries a stable `code` (the
// same codes travel in `error` frames, so a refusal on the server reads the same on the client).

/**
 * The stable codes. Protocol: `malformed_frame`, `version_mismatch`, `frame_too_large`,
 * `unknown_channel`, `channel_in_use`. Auth: `auth_failed`, `auth_timeout`, `origin_refused`,
 * `host_refused`. Limits: `command_not_allowed`, `shell_syntax_not_allowed`, `env_not_allowed`,
 * `dir_not_allowed`, `too_many_sessions`, `output_limit`, `output_too_large`. Files:
 * `not_found`, `not_a_file`, `file_too_large`, `checksum_mismatch`, `io_error`. Relay: `relay_host_not_allowed`,
 * `relay_failed`, `relay_disabled`. MCP: `mcp_token_in_use`, `mcp_unsupported`, `mcp_error`. Incoming webhooks:
 * `hook_token_in_use`, `hook_unsupported`.
 * Connection: `connect_failed`, `disconnected`, `closed`, `idle_timeout`, `aborted`,
 * `spawn_failed`, `timeout`, `server_error`.
 * @typedef {'malformed_frame' | 'version_mismatch' | 'frame_too_large' | 'unknown_channel' | 'channel_in_use'
 *   | 'auth_failed' | 'auth_timeout' | 'origin_refused' | 'host_refused'
 *   | 'command_not_allowed' | 'shell_syntax_not_allowed' | 'env_not_allowed' | 'dir_not_allowed'
 *   | 'too_many_sessions' | 'output_limit' | 'output_too_large'
 *   | 'not_found' | 'not_a_file' | 'file_too_large' | 'checksum_mismatch' | 'io_error'
 *   | 'relay_host_not_allowed' | 'relay_failed' | 'relay_disabled' | 'mcp_token_in_use' | 'mcp_unsupported' | 'mcp_error'
 *   | 'hook_token_in_use' | 'hook_unsupported'
 *   | 'connect_failed' | 'disconnected' | 'closed' | 'idle_timeout' | 'aborted' | 'spawn_failed' | 'timeout'
 *   | 'server_error'} WshErrorCode
 */

/** Every code, for validating the `code` of an error frame. */
export const ERROR_CODES = /** @type {const} */ ([
  'malformed_frame',
  'version_mismatch',
  'frame_too_large',
  'unknown_channel',
  'channel_in_use',
  'auth_failed',
  'auth_timeout',
  'origin_refused',
  'host_refused',
  'command_not_allowed',
  'shell_syntax_not_allowed',
  'env_not_allowed',
  'dir_not_allowed',
  'too_many_sessions',
  'output_limit',
  'output_too_large',
  'not_found',
  'not_a_file',
  'file_too_large',
  'checksum_mismatch',
  'io_error',
  'relay_host_not_allowed',
  'relay_failed',
  'relay_disabled',
  'mcp_token_in_use',
  'mcp_unsupported',
  'mcp_error',
  'hook_token_in_use',
  'hook_unsupported',
  'connect_failed',
  'disconnected',
  'closed',
  'idle_timeout',
  'aborted',
  'spawn_failed',
  'timeout',
  'server_error',
]);

export class WshError extends Error {
  /**
   * @param {WshErrorCode} code
   * @param {string} message what happened and what to do about it
   * @param {{cause?: unknown}} [options]
   */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'WshError';
    /** @type {WshErrorCode} */
    this.code = code;
  }
}

/** A frame that breaks the protocol (bytes, version, header): the channel it came on is closed. */
export class WshProtocolError extends WshError {
  /**
   * @param {'malformed_frame' | 'version_mismatch' | 'frame_too_large' | 'unknown_channel' | 'channel_in_use'} code
   * @param {string} message
   */
  constructor(code, message) {
    super(code, message);
    this.name = 'WshProtocolError';
  }
}

/** The server refused: a key, a command, a directory, a relay host, a limit. */
export class WshRefusedError extends WshError {
  /** @param {WshErrorCode} code @param {string} message */
  constructor(code, message) {
    super(code, message);
    this.name = 'WshRefusedError';
  }
}

/**
 * The JSON-RPC error an exposed tool handler answers an MCP request with (`rpcCode`, e.g. -32602
 * for bad params); the server passes it to the outside MCP client as it is.
 */
export class WshMcpError extends WshError {
  /** @param {number} rpcCode @param {string} message */
  constructor(rpcCode, message) {
    super('mcp_error', message);
    this.name = 'WshMcpError';
    this.rpcCode = rpcCode;
  }
}
