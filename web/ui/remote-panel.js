/** @import { RemoteMachines, Machine, ConnectionStatus } from '../stores/remote-machines.js' */
/** @import { McpExposureControl } from './types.d.ts' */
import { h, clear, guard, formatTime } from './dom.js';
import { emptyState, panelLayout } from './panel-layout.js';
import { confirmDialog } from './dialogs.js';
import { McpExposeSection } from './mcp-expose-section.js';
import { serverCommand } from './wsh-command.js';

/**
 * The Remote panel: the user's own machines reached through wsh — add one (a name and the URL
 * `wsh-server` prints; its key is made here, the private half never leaves the browser), the
 * public key line to paste into the server's keys file (with Copy), a connection test, when it
 * was last used, and its live connection status (kept connected while the panel is open: a
 * dropped connection is tried again until it is back); remove a machine and its key. With `exposure`: this workspace exposed to outside
 * MCP clients through one of the machines (mcp-expose-section.js).
 * @param {{machines: RemoteMachines, exposure?: McpExposureControl, onError: (err: unknown) => void, onBack: () => void}} props
 */
export function RemotePanel(props) {
  const { machines } = props;
  const guarded = guard(props.onError);
  const status = h('p', { class: 'small', role: 'status', 'aria-live': 'polite' });
  const list = h('ul', { class: 'remote-list', 'aria-label': 'Machines' });
  /** Connection tests' results by machine id, kept when the list is drawn again. @type {Map<string, string>} */
  const tested = new Map();
  /** Each drawn machine's live status line, by name. @type {Map<string, HTMLElement>} */
  const live = new Map();
  /** The machines this panel watches (kept connected while it is open), by name. @type {Map<string, () => void>} */
  const watching = new Map();

  const nameInput = /** @type {HTMLInputElement} */ (
    h('input', { id: 'remote-name', name: 'name', required: true, maxLength: 32, placeholder: 'laptop', autocomplete: 'off' })
  );
  const urlInput = /** @type {HTMLInputElement} */ (
    h('input', { id: 'remote-url', name: 'url', required: true, placeholder: 'ws://127.0.0.1:40211/wsh', autocomplete: 'off' })
  );
  const form = h(
    'form',
    {
      class: 'remote-add',
      'aria-label': 'Add a machine',
      on: {
        submit: (e) => {
          e.preventDefault();
          void guarded(async () => {
            const machine = await machines.add({ name: nameInput.value, url: urlInput.value });
            nameInput.value = '';
            urlInput.value = '';
            status.textContent = `Added “${machine.name}”: run the command shown for it on that machine, then test it.`;
          });
        },
      },
    },
    h('label', { for: 'remote-name' }, 'Name'),
    nameInput,
    h('label', { for: 'remote-url' }, 'wsh URL (the first line wsh-server prints)'),
    urlInput,
    h('button', { type: 'submit' }, 'Add machine'),
  );

  /** @param {Machine} m */
  const row = (m) => {
    const keyLine = /** @type {HTMLInputElement} */ (
      h('input', { readOnly: true, class: 'remote-key', id: `remote-key-${m.id}`, 'aria-label': `Public key line of ${m.name}`, value: '' })
    );
    const command = /** @type {HTMLInputElement} */ (
      h('input', { readOnly: true, class: 'remote-key', id: `remote-cmd-${m.id}`, 'aria-label': `Command to run on ${m.name}`, value: '' })
    );
    void machines.publicKeyLine(m.name).then(
      (line) => {
        keyLine.value = line;
        command.value = serverCommand({ appUrl: document.baseURI, keyLine: line, machineUrl: m.url });
      },
      (err) => {
        keyLine.value = '';
        keyLine.placeholder = /** @type {Error} */ (err).message;
      },
    );
    const result = h('p', { class: 'small remote-status', role: 'status' }, tested.get(m.id) ?? 'Not tested yet.');
    const connection = h(
      'p',
      { class: 'small remote-live', role: 'status', 'aria-live': 'polite', 'aria-label': `Connection of ${m.name}` },
      statusText(machines.connection(m.name)),
    );
    live.set(m.name, connection);
    const copy = () =>
      guarded(async () => {
        await navigator.clipboard.writeText(keyLine.value);
        status.textContent = `Copied the key line of “${m.name}”.`;
      });
    const copyCommand = () =>
      guarded(async () => {
        await navigator.clipboard.writeText(command.value);
        status.textContent = `Copied the command to run on “${m.name}”.`;
      });
    const test = () =>
      guarded(async () => {
        result.textContent = 'Connecting…';
        const r = await machines.test(m.name);
        const text = r.ok
          ? `Connected: signed in as “${r.key}”, ${r.pty ? 'with a real terminal (PTY)' : 'with pipes (no PTY on the server)'}.`
          : `Not connected (${r.code}): ${r.message}`;
        tested.set(m.id, text);
        result.textContent = text;
        draw(); // a test that signed in changed "last used" (the list may have been drawn anew meanwhile)
      });
    const remove = () =>
      guarded(async () => {
        const yes = await confirmDialog({
          title: `Remove “${m.name}”?`,
          message: 'Its key is deleted from this browser: adding the machine again makes a new key to paste into the keys file.',
          confirmLabel: 'Remove',
        });
        if (!yes) return;
        await machines.remove(m.name);
        status.textContent = `Removed “${m.name}” and its key.`;
      });
    return h(
      'li',
      { class: 'remote-machine', 'aria-label': m.name },
      h('h3', null, m.name),
      h('p', { class: 'small' }, h('code', null, m.url), ' · ', m.lastUsed ? `last used ${formatTime(m.lastUsed)}` : 'never used'),
      connection,
      h('label', { for: command.id, class: 'small' }, 'Run this on the machine (Node 20 or later; no clone of Clawser needed)'),
      h(
        'div',
        { class: 'row' },
        command,
        h(
          'button',
          { type: 'button', class: 'secondary', 'aria-label': `Copy the command to run on ${m.name}`, on: { click: copyCommand } },
          'Copy',
        ),
      ),
      h('label', { for: keyLine.id, class: 'small' }, 'Or its key line, for a keys file (--keys FILE)'),
      h(
        'div',
        { class: 'row' },
        keyLine,
        h('button', { type: 'button', class: 'secondary', 'aria-label': `Copy the key line of ${m.name}`, on: { click: copy } }, 'Copy'),
      ),
      result,
      h(
        'div',
        { class: 'row' },
        h('button', { type: 'button', 'aria-label': `Test the connection to ${m.name}`, on: { click: test } }, 'Test connection'),
        h('button', { type: 'button', class: 'danger', 'aria-label': `Remove ${m.name}`, on: { click: remove } }, 'Remove'),
      ),
    );
  };

  const draw = () => {
    const all = machines.list();
    live.clear();
    clear(list).append(...(all.length ? all.map(row) : [emptyState('No machines yet. Add one of your computers above.', { tag: 'li' })]));
    // Every machine listed is watched (connected, and connected again when it drops) while the panel is open.
    for (const [name, unwatch] of watching) {
      if (all.some((m) => m.name === name)) continue;
      unwatch();
      watching.delete(name);
    }
    for (const m of all) if (!watching.has(m.name)) watching.set(m.name, machines.watch(m.name));
  };
  const stop = machines.onChange(draw);
  const stopStatus = machines.onStatus((name) => {
    const el = live.get(name);
    if (el) el.textContent = statusText(machines.connection(name));
  });
  draw();

  const root = panelLayout(
    { name: 'remote', title: 'Remote', onBack: props.onBack },
    h(
      'p',
      { class: 'small' },
      'Your own computers, through wsh: add one here (a name and a ws://127.0.0.1:PORT/wsh URL), run the command shown ',
      'for it on that machine (it starts ',
      h('code', null, 'wsh-server'),
      ' with this browser’s key for it), then test the connection. The agent’s remote_exec, ',
      'remote_put and remote_get then reach it (each call asks you first), and the Terminal’s ',
      h('code', null, 'wsh connect NAME'),
      ' opens a shell there.',
    ),
    form,
    status,
    list,
  );
  const expose = props.exposure
    ? McpExposeSection({ exposure: props.exposure, machines: () => machines.list().map((m) => m.name), onError: props.onError })
    : null;
  if (expose) root.append(expose.root);
  const stopMachines = expose ? machines.onChange(() => props.exposure && expose.redraw()) : () => {};
  return {
    root,
    destroy: () => {
      stop();
      stopStatus();
      for (const unwatch of watching.values()) unwatch();
      stopMachines();
      expose?.destroy();
    },
  };
}

/** What the live status line says. @param {ConnectionStatus} s */
function statusText(s) {
  if (s.state === 'connected') return 'Connection: connected.';
  if (s.state === 'connecting') return 'Connection: connecting…';
  return `Connection: ${s.state}${s.reason ? ` — ${s.reason.replace(/\.$/, '')}` : ''}.`;
}
