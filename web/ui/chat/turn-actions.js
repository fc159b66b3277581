/** @import { ChatState, ChatViewController, ConflictChoice } from '../types.d.ts' */
import { h } from '../dom.js';
import { choiceDialog } from '../dialogs.js';

/**
 * Undo and redo of turns in the chat: the Undo row under the latest turn, Redo on the notice of
 * the turn undone last, and what they (and Alt+Z, Alt+Shift+Z, the command palette) do:
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

  /** The Undo button on the latest turn, and Redo on the notice of the turn undone last. @param {ChatState} s */
  const draw = (s) => {
    list.querySelector('li.turn-undo')?.remove();
    for (const b of list.querySelectorAll('button.redo-turn')) b.remove();
    if (s.streaming) return;
    if (s.undo) {
      const changed = s.undo.changes > 0;
      list.append(
        h(
          'li',
          { class: 'notice small muted turn-undo row' },
          h(
            'span',
            null,
            `${s.events.at(-1)?.id === s.undo.last ? 'This turn' : 'The turn before'} ` +
              `changed ${
                changed ? `${s.undo.summary}.` : 'no files, memories, goals or jobs; ' + 'undo takes it ' + 'out of the conversation.'
              }`,
          ),
          h(
            'button',
            {
              type: 'button',
              class: 'secondary small-btn',
              'aria-keyshortcuts': 'Alt+Z',
              title: 'Undo the latest turn (Alt+Z)',
              on: { click: () => takeBack('undo') },
            },
            'Undo turn',
          ),
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
