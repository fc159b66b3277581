// Types of the vendored terminal bundle (scripts/vendor.mjs → web/vendor/xterm.js).
declare module '@clawser/terminal' {
  export { Terminal } from '@xterm/xterm';
  export { FitAddon } from '@xterm/addon-fit';
}
