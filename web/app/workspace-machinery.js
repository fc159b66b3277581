// What the app needs once a workspace opens or a scheduled job runs, and the home screen never
// does: the workspace's services (every tool family), its chat, its views, the daemon, job
// delivery and the settings flow. app.js loads it with one import() when first needed, so the
// home screen's path to app-ready stays short; scripts/index-html.mjs lists its modules
// ('workspace-modules'), which main.js preloads after the home screen is ready, or at once on a
// workspace's route.
export { WorkspaceServices } from './workspace-services.js';
export { createChatController } from './chat-assembly.js';
export { JobDelivery } from './job-delivery.js';
export { SettingsFlow } from './settings-flow.js';
export { startWorkspaceDaemon } from './daemon-wiring.js';
export { checkWorkspace } from './workspace-check.js';
export { LayoutPreference, artifactSlot } from './workspace-layout.js';
export { WorkspaceView } from '../ui/workspace-view.js';
export { SplitView } from '../ui/split-view.js';
export { ChatView } from '../ui/chat-view.js';
