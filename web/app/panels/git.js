// The Git panel: status, diff, commits, branches and remotes of the workspace's repository.
/** @import { PanelEntry } from '../panels.js' */

/** @type {PanelEntry} */
const panel = {
  name: 'git',
  label: 'Git',
  icon: 'git-branch',
  shortcut: 'Alt+2',
  split: true,
  async open(ctx) {
    const { workspaceId, agentSettings } = ctx;
    const repo = await ctx.services.git();
    const s = agentSettings.load(workspaceId);
    // A folder opened from the computer is never made a repository behind the user's back.
    if (s.git.autoInit && !ctx.services.mount.current()) await repo.ensureRepo();
    const [{ GitPanel }, { GitController }] = await Promise.all([import('../../ui/git-panel.js'), import('../git-controller.js')]);
    return GitPanel({
      git: new GitController({ repo, settings: agentSettings, workspaceId }),
      hasToken: agentSettings.hasGitToken(workspaceId),
      corsProxy: s.git.corsProxy,
      autoCommit: s.git.autoCommit,
      onAutoCommit: (on) => agentSettings.saveSection(workspaceId, 'git', { autoCommit: on }),
      autoInit: s.git.autoInit,
      onAutoInit: (on) => agentSettings.saveSection(workspaceId, 'git', { autoInit: on }),
      onError: ctx.showError,
      onBack: ctx.back,
    });
  },
};
export default panel;
