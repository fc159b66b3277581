/** @import { ToolDefinition, ToolContext, ToolFamily } from './types.d.ts' */
// The agent's way out through a channel (docs/security.md, "Channels"): channel_send sends a
// message through one of the workspace's channels — a Telegram bot to the people the channel
// answers, an outgoing webhook's POST. Sending is an outside action: its permission (network)
// asks by default, and after untrusted content in the turn it always asks (`outbound`), over
// "Always allow". Only a channel that exists and is not paused; the channel's secret (a bot token,
// a webhook's address) is used by web/app/channels.js and never reaches this tool's output.
import { z } from 'zod';
import { ChannelError, KIND_NAMES, SenderIdSchema } from '../channels/channel.js';

/** The workspace's channels, or why there are none here. @param {ToolContext} ctx */
async function channelsOf(ctx) {
  if (!ctx.services?.channels) throw new ChannelError('invalid', 'Channels are not available here (no Clawser window runs them).');
  return ctx.services.channels();
}

/** @type {ToolDefinition} */
const channelSend = {
  name: 'channel_send',
  description:
    'Send a message out of Clawser through one of the workspace’s channels (named as in the Channels panel): a Telegram bot sends ' +
    'it to the people the channel answers (or to one of them: `to`, a Telegram user id), an outgoing webhook POSTs it. The user ' +
    'is asked unless they always allow it; after outside content in the turn they are always asked.',
  permission: 'network',
  outbound: 'send a message out of Clawser through a channel',
  schema: z.object({
    channel: z.string().trim().min(1).max(64).describe('The channel’s name'),
    text: z.string().trim().min(1).max(8000).describe('What to send'),
    to: SenderIdSchema.optional().describe('Telegram: one of the user ids the channel answers (default: all of them)'),
  }),
  async preview(args, ctx) {
    const c = (await channelsOf(ctx)).named(args.channel);
    const where = `${KIND_NAMES[c.kind]}${c.label ? `, ${c.label}` : ''}`;
    const who = args.to ? ` to Telegram user ${args.to}` : '';
    return `Send to the channel “${c.name}” (${where})${who}${c.paused ? ' — it is paused' : ''}:\n${args.text.slice(0, 1000)}`;
  },
  async run(args, ctx) {
    try {
      const channels = await channelsOf(ctx);
      const c = channels.named(args.channel);
      await channels.send(c.id, { text: args.text, ...(args.to ? { to: args.to } : {}) });
      const whom = c.kind === 'telegram' ? ` (to ${args.to ? `Telegram user ${args.to}` : 'the people it answers'})` : '';
      return { ok: true, output: `Sent to the channel “${c.name}”${whom}.` };
    } catch (err) {
      if (ctx.signal?.aborted) throw err;
      // A ChannelError's words name no secret; anything else is told by its kind only.
      if (err instanceof ChannelError) return { ok: false, output: `${err.message} (${err.code})` };
      return { ok: false, output: `The message could not be sent (${/** @type {Error} */ (err)?.name ?? 'error'}).` };
    }
  },
};

/** @type {ToolFamily} */
export const family = { id: 'channels', tools: [channelSend] };
