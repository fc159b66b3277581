/** @import { ChatState, ChatViewController, ConflictChoice } from '../types.d.ts' */
import { h } from '../dom.js';
import { choiceDialog } from '../dialogs.js';

/**
 * Undo and redo of turns in the chat: the Undo row under the latest turn that changed something,
 * Redo on the notice of the turn undone last, and what they (and Alt+Z, Alt+Shift+Z, the command palette) do:
 * something changed by someone else since is shown, and the user chooses to overwrite it or keep
 * it (or to leave everything as it is).
 * @param {{controller: Pick<ChatViewController, 'undoTurn' | 'redoTurn'>, list: HTMLElement}} props list: the message list
 */
export function TurnActions({ controller, list }) {
  /** @param {'undo' | 'redo'} direction */
  const takeBack = async (direction) => {
    const act = (/** @type {{conflicts?: ConflictChoice}} */ o) => (direction === 'undo' ? controller.undoTurn(o) : controller.redoTurn(o));
    // The controller says every outcome (a notice); only a conflict needs the user here.
    const r = await act({});
    if (!r.conflicts) return;
    const choice = await choiceDialog({
      title: direction === 'undo' ? 'Undo: changed since the turn' : 'Redo: changed since the undo',
      message:
        `These were changed by someone else after the ${direction === 'undo' ? 'turn' : 'undo'} (you, another tab, or a job). ` +
        `Overwrite them too, or ${direction} everything else and keep them as they are now?`,
      items: r.conflicts,
      choices: [
        { value: 'keep', label: 'Keep their changes' },
        { value: 'overwrite', label: 'Overwrite them', danger: true },
      ],
    });
    if (choice) await act({ conflicts: choice });
  };

  /**
   * The Undo button on the latest turn that changed something, and Redo on the notice of the turn
   * undone last. A turn that changed nothing gets no row: its Undo is one of its reply's actions
   * (Alt+Z and the palette undo it too); a turn just redone carries its Undo on its "Turn redone" line, so a redo says one thing once.
   * @param {ChatState} s
   */
  const draw = (s) => {
    list.querySelector('li.turn-undo')?.remove();
    for (const b of list.querySelectorAll('button.redo-turn, button.undo-turn')) b.remove();
    if (s.streaming) return;
    const end = s.events.at(-1);
    if (s.undo && s.undo.changes === 0 && end?.id === s.undo.last) {
      // Nothing to put back: Undo is one of the latest reply's actions (shown on hover and focus), not a row.
      const actions = [...list.querySelectorAll('li.msg.assistant[data-event-id] .msg-actions')].at(-1);
      actions?.append(
        h(
          'button',
          {
            type: 'button',
            class: 'copy-btn undo-turn',
            'aria-keyshortcuts': 'Alt+Z',
            title: 'Take this turn out of the conversation (Alt+Z); it changed no files, memories, goals or jobs',
            on: { click: () => takeBack('undo') },
          },
          'Undo turn',
        ),
      );
    }
    if (s.undo && s.undo.changes > 0) {
      const button = h(
        'button',
        {
          type: 'button',
          class: 'secondary small-btn undo-turn',
          'aria-keyshortcuts': 'Alt+Z',
          title: 'Undo the latest turn (Alt+Z)',
          on: { click: () => takeBack('undo') },
        },
        'Undo turn',
      );
      const redone =
        end?.type === 'turn_redone' && end.data.turnId === s.undo.turnId
          ? list.querySelector(`li.turn-undone[data-event-id="${CSS.escape(end.id)}"]`)
          : null;
      if (redone) redone.append(' ', button);
      else
        list.append(
          h(
            'li',
            { class: 'notice small muted turn-undo row' },
            h('span', null, `${end?.id === s.undo.last ? 'This turn' : 'The turn before'} changed ${s.undo.summary}.`),
            button,
          ),
        );
    }
    if (s.redo) {
      list.querySelector(`li.turn-undone[data-event-id="${CSS.escape(s.redo.event)}"]`)?.append(
        ' ',
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small-btn redo-turn',
            'aria-keyshortcuts': 'Alt+Shift+Z',
            title: 'Redo the turn (Alt+Shift+Z)',
            on: { click: () => takeBack('redo') },
          },
          'Redo turn',
        ),
      );
    }
  };

  return { draw, takeBack };
}
