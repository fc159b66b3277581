// The Agents panel: named agents (create, edit, duplicate, export, import), the workspace's
// identity and the heartbeat checklist with its schedule.
/** @import { PanelEntry } from '../panels.js' */

/** @type {PanelEntry} */
const panel = {
  name: 'agents',
  label: 'Agents',
  icon: 'bot',
  shortcut: 'Alt+A',
  split: false,
  async open(ctx) {
    const { workspaceId, agentSettings } = ctx;
    const { scheduler, registry } = ctx.services;
    const [{ AgentsPanel }, defs, identity, agentModule, store] = await Promise.all([
      import('../../ui/agents-panel.js'),
      import('../../agent/runtime/agent-definitions.js'),
      import('../../agent/runtime/identity.js'),
      import('../../agent/runtime/agent.js'),
      ctx.services.agents(),
    ]);
    // The examples in the empty Provider and Model fields: a provider of the registry and its default model.
    const example = (await import('../../providers/catalog.js')).CATALOG.find((e) => e.capabilities.key === 'required');
    return AgentsPanel({
      providerExample: example?.id,
      modelExample: example?.defaultModel,
      agents: store,
      format: {
        toJson: defs.agentToJson,
        toMarkdown: defs.agentToMarkdown,
        parseFile: defs.parseAgentFile,
        validate: defs.validateAgent,
        checkIdentity: identity.parseIdentity,
        preview: (a) => defs.agentSystemPrompt(a, agentModule.DEFAULT_SYSTEM_PROMPT),
        identityTemplate: identity.IDENTITY_TEMPLATE,
      },
      heartbeat: {
        async load() {
          const job = (await scheduler.list()).find((j) => j.action.kind === 'heartbeat');
          const when = agentSettings.load(workspaceId).heartbeat.when;
          const next = job?.nextRunAt ? new Date(job.nextRunAt).toLocaleString() : null;
          return { enabled: !!job && !job.paused, when, checklist: (await store.heartbeat()) ?? '', next };
        },
        async save(hb) {
          // The schedule is checked first: a phrase it cannot read changes nothing.
          if (hb.enabled) scheduler.preview(hb.when);
          await store.setHeartbeat(hb.checklist);
          for (const j of (await scheduler.list()).filter((x) => x.action.kind === 'heartbeat')) await scheduler.remove(j.id);
          const s = agentSettings.load(workspaceId);
          agentSettings.save(workspaceId, { ...s, heartbeat: { when: hb.when || s.heartbeat.when } });
          if (!hb.enabled) return 'Heartbeat off. The checklist is kept.';
          const job = await scheduler.add({
            when: hb.when,
            action: { kind: 'heartbeat' },
            name: 'Heartbeat',
            delivery: 'always',
            createdBy: 'user',
          });
          const next = (await scheduler.get(job.id))?.nextRunAt;
          const empty = hb.checklist.trim() ? '' : ' The checklist is empty: nothing will be reviewed until you write one.';
          const review = next ? `; next review ${new Date(next).toLocaleString()}` : '';
          return `Heartbeat on: ${scheduler.describe(job.trigger)}${review}.${empty}`;
        },
      },
      toolNames: registry.list().map((t) => t.name),
      routes: ['fast', 'smart', 'code', 'vision'],
      defaultName: defs.DEFAULT_AGENT_NAME,
      onError: ctx.showError,
      onBack: ctx.back,
    });
  },
};
export default panel;
