// The Events panel: a conversation's whole event log as a timeline; fork at an event, export, import.
/** @import { PanelEntry } from '../panels.js' */

/** @type {PanelEntry} */
const panel = {
  name: 'events',
  label: 'Events',
  icon: 'scroll-text',
  shortcut: 'Alt+7',
  split: false,
  async open(ctx) {
    const [{ EventsPanel }, { LeakDetector }, actions] = await Promise.all([
      import('../../ui/events-panel.js'),
      import('../../safety/leak-detector.js'),
      import('../conversation-actions.js'),
    ]);
    const { chat } = ctx;
    const detector = new LeakDetector();
    return EventsPanel({
      conversations: chat.state.conversations,
      conversationId: chat.state.activeId,
      load: (id) => chat.store.allEvents(id),
      // The log is redacted when written; this catches anything older rules missed.
      redact: (text) => detector.scan(text).redacted,
      onFork: async (conversationId, eventId) => {
        const meta = await chat.forkAt(conversationId, eventId);
        ctx.openConversation(meta.id);
      },
      onExport: (id) => {
        actions.exportConversation(chat, id).catch(ctx.showError);
      },
      onImport: () =>
        actions.pickConversationFile((file) => {
          actions.importConversation(chat, file).then((meta) => ctx.openConversation(meta.id), ctx.showError);
        }),
      onOpenConversation: ctx.openConversation,
      onError: ctx.showError,
      onBack: ctx.back,
    });
  },
};
export default panel;
