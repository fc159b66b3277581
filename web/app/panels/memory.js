// The Memory panel: the workspace's memories, automatic recall, summaries and search by meaning.
/** @import { PanelEntry } from '../panels.js' */

/** @type {PanelEntry} */
const panel = {
  name: 'memory',
  label: 'Memory',
  icon: 'brain',
  shortcut: 'Alt+3',
  split: false,
  async open(ctx) {
    const { workspaceId, agentSettings } = ctx;
    const [{ MemoryPanel }, { SemanticSection }, { SUMMARIZE_OVER, currentSummary }, memory, maker] = await Promise.all([
      import('../../ui/memory-panel.js'),
      import('../../ui/semantic-section.js'),
      import('../../memory/summaries.js'),
      ctx.services.memory(),
      ctx.services.summaries(),
    ]);
    const semantic = SemanticSection(await ctx.services.semantic.sectionProps(memory, ctx.showError));
    const settings = agentSettings.load(workspaceId).memory;
    return MemoryPanel({
      memory,
      semantic,
      recall: settings,
      onRecall: (r) => agentSettings.saveSection(workspaceId, 'memory', r),
      summaries: {
        maker,
        mode: settings.summaries,
        onMode: (mode) => agentSettings.saveSection(workspaceId, 'memory', { summaries: mode }),
        over: SUMMARIZE_OVER,
        current: currentSummary,
      },
      onError: ctx.showError,
      onBack: ctx.back,
    });
  },
};
export default panel;
