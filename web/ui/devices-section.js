/** @import { DevicesControl, DeviceKind, DeviceRowView } from './types.d.ts' */
import { h } from './dom.js';

/** @type {Record<DeviceKind, string>} */
const KIND_NAMES = { serial: 'serial port', hid: 'HID device', usb: 'USB device', bluetooth: 'Bluetooth device' };

/**
 * The Tools panel's Devices section: the devices the user picked in the browser's chooser for the
 * hardware tools (serial ports, HID, USB and Bluetooth devices), each with Revoke (the browser forgets the pick: the agent can no
 * longer reach it until the user picks it again).
 * @param {DevicesControl} props
 */
export function DevicesSection(props) {
  const list = h('ul', { 'aria-labelledby': 'devices-title' });
  const state = h('p', { role: 'status', class: 'small' });
  /** @param {DeviceRowView[]} rows */
  const show = (rows) => {
    list.replaceChildren(
      ...rows.map((d) =>
        h(
          'li',
          { 'aria-label': d.id },
          h('span', null, h('code', null, d.id), ` — ${d.label}${d.open ? ' (open)' : ''} `),
          h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              'aria-label': `Revoke ${d.id}`,
              on: {
                click: () => {
                  props.forget(d.id).then(
                    () => {
                      state.textContent = `Revoked ${d.id}: the agent can no longer use it.`;
                      refresh();
                    },
                    (err) => {
                      state.textContent = `Could not revoke ${d.id}: ${String(/** @type {Error} */ (err)?.message ?? err)}`;
                    },
                  );
                },
              },
            },
            'Revoke',
          ),
        ),
      ),
    );
    if (!rows.length)
      list.append(
        h('li', null, props.supported ? 'No device picked.' : 'This browser has no Web Serial, WebHID, WebUSB nor Web Bluetooth.'),
      );
  };
  const refresh = () => {
    props.list().then(show, (err) => {
      state.textContent = String(/** @type {Error} */ (err)?.message ?? err);
    });
  };
  refresh();
  const services = /** @type {HTMLInputElement} */ (
    h('input', { id: 'bluetooth-services', type: 'text', placeholder: 'heart_rate, 0x180f', autocomplete: 'off' })
  );
  /** @param {DeviceKind} kind */
  const pickButton = (kind) =>
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        on: {
          // The browser opens its chooser only from the person's click: asked at once, in it.
          click: () => {
            state.textContent = '';
            props.pick(kind, kind === 'bluetooth' ? services.value : undefined).then(
              (picked) => {
                state.textContent = picked ? `Picked ${picked.id}: ${picked.label}.` : `No ${KIND_NAMES[kind]} was picked.`;
                refresh();
              },
              (err) => {
                state.textContent = `Could not pick a ${KIND_NAMES[kind]}: ${String(/** @type {Error} */ (err)?.message ?? err)}`;
              },
            );
          },
        },
      },
      `Pick a ${KIND_NAMES[kind]}…`,
    );
  const pickers = props.kinds.length
    ? h(
        'div',
        { class: 'row' },
        ...props.kinds.filter((k) => k !== 'bluetooth').map(pickButton),
        ...(props.kinds.includes('bluetooth')
          ? [h('label', { for: services.id }, 'Bluetooth services'), services, pickButton('bluetooth')]
          : []),
      )
    : null;
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'devices-title' },
    h('h3', { id: 'devices-title' }, 'Devices'),
    h(
      'p',
      { class: 'small muted' },
      'The devices you picked in the browser’s list, here or when the agent asked. The agent can use only these, each ' +
        'read and write asking first unless you choose “Always allow” for that device. Revoke makes the browser forget one. ' +
        'A Bluetooth device is picked with the GATT services the agent may use.',
    ),
    pickers,
    list,
    state,
  );
}
