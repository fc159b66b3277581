// The icons the app draws, by their Lucide name (lucide-static, ISC licence). scripts/vendor.mjs
// vendors exactly these into web/vendor/icons.js (`@clawser/icons`), so an icon used must be
// listed here; tests/unit/icons.test.mjs checks every name exists in Lucide and that every
// icon the UI and the panel registry name is on this list. Pure data: the vendoring script
// imports it in Node.

export const ICON_NAMES = Object.freeze([
  // The navigation: the chat and the built-in panels (web/app/panels/*.js).
  'messages-square',
  'folder',
  'git-branch',
  'brain',
  'target',
  'alarm-clock',
  'wrench',
  'scroll-text',
  'chart-column',
  'puzzle',
  'plug',
  'monitor',
  'square-terminal',
  'bot',
  'braces',
  'send',
  // The workspace's header and rail.
  'menu',
  'panel-left-close',
  'panel-left-open',
  'columns-2',
  'settings',
  // Actions and marks.
  'pencil',
  'download',
  'x',
  'pin',
  'ellipsis',
  'paperclip',
  'clock',
  'chevron-right',
  'chevron-down',
  'chevron-left',
  'skip-back',
  'skip-forward',
  'file',
  'search',
  'inbox',
  // The conversation list: tags, a sub-agent's conversation (a scheduled job's is the alarm clock above).
  'tag',
  'corner-down-right',
]);
