import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shortcutList } from '../../web/app/shortcuts.js';
import { PANEL_NAV } from '../../web/app/panel-nav.js';

test('the shortcut list names every panel shortcut after the fixed ones, and leaves out panels without one', () => {
  const list = shortcutList([...PANEL_NAV, { label: 'Extra' }]);
  assert.deepEqual(
    list.slice(0, 2).map((s) => s.keys),
    ['?', 'Ctrl+K / ⌘K'],
  );
  assert.ok(list.some((s) => s.keys === 'Alt+0' && s.action === 'Open Chat'));
  for (const p of PANEL_NAV)
    assert.ok(
      list.some((s) => s.keys === p.shortcut && s.action === `Open ${p.label}`),
      p.name,
    );
  assert.ok(!list.some((s) => s.action === 'Open Extra'));
  // The keys that only work in one place are listed too: the split divider, the editor, the Terminal.
  for (const keys of ['← / →, Home, End', 'Ctrl+S / ⌘S', 'Esc, then Tab', 'Ctrl+Shift+C / Ctrl+Shift+V'])
    assert.ok(
      list.some((s) => s.keys === keys),
      keys,
    );
  // Control: the same panel with a shortcut is listed.
  assert.ok(shortcutList([{ label: 'Extra', shortcut: 'Alt+X' }]).some((s) => s.keys === 'Alt+X' && s.action === 'Open Extra'));
});
