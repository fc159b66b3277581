/**
 * What the chat controller refuses to do as asked: `invalid` (an import that is not a
 * conversation), `not_found` (a fork at an event the conversation does not have), `client` (a
 * turn addressed to an agent that does not exist).
 */
export class ChatError extends Error {
  /** @param {'invalid' | 'not_found' | 'client'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'ChatError';
    this.code = code;
  }
}
