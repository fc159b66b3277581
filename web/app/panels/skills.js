// The Skills panel: the skills of every workspace and of this one; install from a file, a URL or the registry.
/** @import { PanelEntry } from '../panels.js' */

/** @type {PanelEntry} */
const panel = {
  name: 'skills',
  label: 'Skills',
  icon: 'puzzle',
  shortcut: 'Alt+S',
  split: false,
  async open(ctx) {
    const [{ SkillsPanel }, sources, registry, skills] = await Promise.all([
      import('../../ui/skills-panel.js'),
      import('../../skills/sources.js'),
      import('../../skills/registry.js'),
      ctx.services.skills(),
    ]);
    return SkillsPanel({ skills, sources, registry, onError: ctx.showError, onBack: ctx.back });
  },
};
export default panel;
