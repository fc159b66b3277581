import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shortcutList, hasCommandKey, paletteKeys } from '../../web/app/shortcuts.js';
import { PANEL_NAV } from '../../web/app/panel-nav.js';

test('the shortcut list names every panel shortcut after the fixed ones, and leaves out panels without one', () => {
  const list = shortcutList([...PANEL_NAV, { label: 'Extra' }]);
  assert.deepEqual(
    list.slice(0, 2).map((s) => s.keys),
    ['?', 'Ctrl+K'],
  );
  assert.ok(list.some((s) => s.keys === 'Alt+0' && s.action === 'Open Chat'));
  for (const p of PANEL_NAV)
    assert.ok(
      list.some((s) => s.keys === p.shortcut && s.action === `Open ${p.label}`),
      p.name,
    );
  assert.ok(!list.some((s) => s.action === 'Open Extra'));
  // The keys that only work in one place are listed too: the split divider, the editor, the Terminal.
  for (const keys of ['← / →, Home, End', 'Ctrl+S', 'Esc, then Tab', 'Ctrl+Shift+C / Ctrl+Shift+V'])
    assert.ok(
      list.some((s) => s.keys === keys),
      keys,
    );
  // Control: the same panel with a shortcut is listed.
  assert.ok(shortcutList([{ label: 'Extra', shortcut: 'Alt+X' }]).some((s) => s.keys === 'Alt+X' && s.action === 'Open Extra'));
});

// Issue 37 §1: "⌘K" was shown on Linux and Windows. The keys are written as the keyboard has them.
test('⌘ only where the keyboard has it: Mac, iPad, iPhone; Ctrl on Linux and Windows (control: the Mac keeps ⌘K)', () => {
  for (const nav of [{ platform: 'MacIntel' }, { platform: 'iPad' }, { userAgentData: { platform: 'macOS' }, platform: 'MacIntel' }])
    assert.equal(paletteKeys(hasCommandKey(nav)), '⌘K', JSON.stringify(nav));
  for (const nav of [
    { platform: 'Linux x86_64' },
    { platform: 'Win32' },
    { userAgentData: { platform: 'Windows' }, platform: 'Win32' },
    { userAgentData: { platform: 'Linux' } },
    { userAgentData: { platform: 'Android' }, platform: 'Linux armv8l' },
    {},
  ])
    assert.equal(paletteKeys(hasCommandKey(nav)), 'Ctrl+K', JSON.stringify(nav));
  const mac = shortcutList([], { command: true });
  assert.ok(mac.some((s) => s.keys === '⌘K') && mac.some((s) => s.keys === '⌘S'));
  assert.ok(!mac.some((s) => s.keys === 'Ctrl+K' || s.keys === 'Ctrl+S'));
  assert.ok(!shortcutList([]).some((s) => s.keys.includes('⌘')), 'none on Linux and Windows');
});
