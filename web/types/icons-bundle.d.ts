// Types of the vendored icon set (scripts/vendor.mjs → web/vendor/icons.js): each icon of
// web/ui/icon-names.js as Lucide's drawing, a list of [SVG element, its attributes].
declare module '@clawser/icons' {
  export const ICONS: Readonly<Record<string, readonly (readonly [string, Readonly<Record<string, string>>])[]>>;
}
