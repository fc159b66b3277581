/**
 * What the user does to a conversation from the rail, the chat and the command palette, with
 * the dialogs that ask for what is missing: rename it, tag it, export it (the format asked for, the
 * file downloaded), import one from a file, delete it, save one of its code blocks as a
 * workspace file.
 */
/** @import { ChatController } from './chat-controller.js' */
/** @import { FilesController } from './files-controller.js' */
import { downloadBlob, pickFile } from '../ui/dom.js';
import { confirmDialog, formDialog, promptDialog } from '../ui/dialogs.js';

/** Asks for the new title. @param {ChatController} controller @param {string} id */
export async function renameConversation(controller, id) {
  const title = controller.state.conversations.find((c) => c.id === id)?.title ?? '';
  const next = await promptDialog({ title: 'Rename conversation', label: 'Conversation title', value: title, submitLabel: 'Rename' });
  if (next) await controller.rename(id, next);
}

/**
 * Opens the tags dialog (loaded on first use), suggesting the workspace's other tags, and saves
 * what the person chose. @param {ChatController} controller @param {string} id
 */
export async function editTags(controller, id) {
  const [{ tagsDialog }, { workspaceTags }, { normalizeTags }] = await Promise.all([
    import('../ui/tags-dialog.js'),
    import('../ui/conversation-groups.js'),
    import('../agent/conversation/conversation-list.js'),
  ]);
  const conversations = controller.state.conversations;
  const c = conversations.find((x) => x.id === id);
  const tags = await tagsDialog({
    title: `Tags of “${c?.title ?? 'this conversation'}”`,
    tags: c?.tags ?? [],
    suggestions: workspaceTags(conversations),
    check: normalizeTags,
  });
  if (tags) await controller.setTags(id, tags);
}

/** Asks for the format and downloads the file. @param {ChatController} controller @param {string} id */
export async function exportConversation(controller, id) {
  const title = controller.state.conversations.find((c) => c.id === id)?.title ?? 'Conversation';
  // Short options (a select cannot wrap on a phone); what JSONL is goes in the hint.
  /** @type {Record<string, 'markdown' | 'jsonl' | 'html'>} */
  const formats = { Markdown: 'markdown', 'JSONL (importable)': 'jsonl', 'HTML page': 'html' };
  const choice = await formDialog({
    title: `Export “${title}”`,
    fields: [
      {
        name: 'format',
        label: 'Format',
        options: Object.keys(formats),
        value: 'Markdown',
        hint: 'JSONL is the event log with every version; it can be imported back.',
      },
    ],
    submitLabel: 'Export',
  });
  if (!choice) return;
  const file = await controller.exportConversation(id, formats[String(choice.format)] ?? 'markdown');
  downloadBlob(new Blob([file.text], { type: file.type }), file.name);
}

/**
 * Asks to confirm, then deletes it. Resolves to what was deleted: 'active' (the conversation on
 * screen), 'other', or null when the user cancelled.
 * @param {ChatController} controller @param {string} id @param {string} title
 * @returns {Promise<'active' | 'other' | null>}
 */
export async function deleteConversation(controller, id, title) {
  const ok = await confirmDialog({
    title: `Delete “${title}”?`,
    message: 'The whole conversation is removed from this browser. This cannot be undone.',
    confirmLabel: 'Delete conversation',
  });
  if (!ok) return null;
  const wasActive = controller.state.activeId === id;
  await controller.remove(id);
  return wasActive ? 'active' : 'other';
}

/** Imports a file as a new conversation. @param {ChatController} controller @param {File} file */
export async function importConversation(controller, file) {
  return controller.importConversation(file.name, await file.text());
}

/** Asks for a JSONL file (what an export as JSONL wrote). @param {(file: File) => void} onFile */
export function pickConversationFile(onFile) {
  pickFile('.jsonl,.json,application/x-ndjson', onFile);
}

/**
 * Saves a code block from the chat as a workspace file, asking for its path (and before
 * replacing a file). Resolves to the path, or null when the user cancelled.
 * @param {() => Promise<FilesController>} files the workspace's files
 * @param {string} code @param {string} ext
 */
export async function saveCodeToWorkspace(files, code, ext) {
  const path = await promptDialog({
    title: 'Save code to the workspace',
    label: 'File path',
    value: `snippet.${ext}`,
    submitLabel: 'Save',
  });
  if (!path) return null;
  const controller = await files();
  if (
    (await controller.exists(path)) &&
    !(await confirmDialog({
      title: 'Replace the file?',
      message: `"${path}" exists. Replace its content with this code?`,
      confirmLabel: 'Replace',
    }))
  )
    return null;
  await controller.save(path, code.endsWith('\n') ? code : `${code}\n`);
  return controller.check(path);
}
