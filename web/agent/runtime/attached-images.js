/** @import { Message, ImagePart, ImageRef } from '../../providers/types.d.ts' */
import { toBase64 } from '../../storage/base64.js';

/**
 * The images a user attached to messages (kept as files of the conversation, the log holds
 * their paths), put into the messages sent to the model. Each is read once (a turn's calls
 * send them again).
 */
export class AttachedImages {
  /** Data URLs by path. @type {Map<string, string>} */
  #urls = new Map();

  /** @param {(ref: ImageRef) => Promise<Uint8Array>} read the conversation's file of an image */
  constructor(read) {
    this.read = read;
  }

  /**
   * The messages with their images loaded, for a provider that accepts images; for one that
   * does not, each message says an image was left out (so the model does not answer as if it saw it).
   * @param {Message[]} messages @param {boolean | undefined} supportsVision
   */
  async into(messages, supportsVision) {
    if (!messages.some((m) => m.imageRefs?.length)) return messages;
    return Promise.all(
      messages.map(async (m) => {
        if (!m.imageRefs?.length) return m;
        const { imageRefs, ...rest } = m;
        if (!supportsVision)
          return {
            ...rest,
            content:
              `${rest.content}\n\n[${imageRefs.length} attached image${imageRefs.length === 1 ? '' : 's'} not shown: this model ` +
              `does not accept images]`,
          };
        /** @type {ImagePart[]} */
        const images = [];
        for (const ref of imageRefs) {
          let url = this.#urls.get(ref.path);
          if (!url) {
            try {
              url = `data:${ref.mediaType};base64,${toBase64(await this.read(ref))}`;
            } catch {
              continue; // a missing file (a partial restore): the message goes without it
            }
            this.#urls.set(ref.path, url);
          }
          images.push({ mediaType: ref.mediaType, dataUrl: url });
        }
        return images.length ? { ...rest, images } : rest;
      }),
    );
  }
}
