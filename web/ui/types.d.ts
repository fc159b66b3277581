// What the views need of the objects the app hands them, stated by the views: the app's
// controllers and stores satisfy these interfaces where the app passes them in (tsc checks it
// there), and no view names a type of web/app/ (tests/unit/layering.test.mjs).
import type { ClawserEvent, ConversationMeta, EventOf, RouteHint } from '../agent/types.d.ts';
import type { ConversationSpend } from '../agent/conversation/event-log.js';
import type { DelegationState } from '../agent/coordination/delegation-board.js';
import type { ImageRef, ProviderErrorShape } from '../providers/types.d.ts';
import type { TokenFamily } from '../providers/tokens.js';
import type { AutonomyConfig } from '../agent/runtime/autonomy.js';
import type { DirEntry } from '../storage/types.d.ts';
import type { FileStatus, CommitInfo, FileDiff } from '../git/git.js';

// ── The chat ────────────────────────────────────────────────────────────────────────────────

/** What the chat shows of a workspace's conversations (the chat controller's state). */
export interface ChatState {
  conversations: ConversationMeta[];
  activeId: string | null;
  /** The transcript of the active conversation (its active version). */
  events: readonly ClawserEvent[];
  /** Events of the transcript that have other versions (an edited message, a regenerated reply): for ‹ 1/2 ›. */
  versions: ReadonlyMap<string, { index: number; count: number; siblings: string[] }>;
  hasEarlier: boolean;
  /** The reply in progress. */
  streaming: { text: string; thinking: string; status: string } | null;
  /**
   * The last turn's failure: `text` to re-send, or `resume` to continue after tool results;
   * selfRepair: self-repair stopped a stuck run (the user may continue anyway); agent: the named
   * agent whose turn failed (a retry is its again).
   */
  failure: (ProviderErrorShape & { text: string; resume: boolean; selfRepair?: boolean; agent?: string }) | null;
  /** A one-off message (storage repaired, …). */
  notice: string | null;
  /** A message to bring into view (a search hit), once. */
  focus?: string | null;
  /** The cost and token meter of the active conversation. */
  meter?: ChatMeter | null;
  /** Texts waiting to go with the next message (MCP resources, documents). */
  attachments?: AttachmentChip[];
  /** The turn "Undo" reverts (its last event carries the button). */
  undo?: { turnId: string; last: string; summary: string; changes: number } | null;
  /** The undone turn "Redo" re-applies (its turn_undone notice carries the button). */
  redo?: { turnId: string; event: string } | null;
}

/** The cost and token meter of a conversation, and its model menu. */
export interface ChatMeter {
  /** This conversation's model calls. */
  spend: ConversationSpend;
  /** The provider's tokenizer family (for the composer's estimate). */
  family: TokenFamily;
  /** The workspace's spend today, and this month. */
  todayCents?: number;
  monthCents?: number;
  /** Providers the circuit breaker skips until `retryAt`. */
  paused?: { provider: string; failures: number; retryAt: number }[];
  /** A cost limit is 80% used. */
  warning?: string | null;
  /** The workspace's routing hints (for the conversation's model menu). */
  routes?: { hint: RouteHint; label: string; model: string }[];
  /** The hint this conversation is pinned to. */
  route?: RouteHint | null;
  /** The chat header's menu of the workspace's model (its provider's models, its fallbacks); null without a provider. */
  models?: { choices: ModelMenuChoice[]; current: string; label: string } | null;
}

/** A command the composer's "/" offers: a skill ("/name") or an MCP server's prompt (its arguments in `args`). */
export interface SlashCompletion {
  command: string;
  description: string;
  kind: 'skill' | 'prompt';
  args?: string;
}

/** A choice of the chat header's model menu: its id (for `setModel`), what it says, the group it is listed under. */
export interface ModelMenuChoice {
  id: string;
  label: string;
  group: string;
}

/** A text waiting to go with the next message, as its chip shows it: its name, and for a document its kind, pages and size. */
export interface AttachmentChip {
  label: string;
  detail?: string;
}

/** A document attached to the next message: its name, what the chip says of it, a note (its text truncated), where it is kept. */
export interface AttachedDocument {
  label: string;
  detail: string;
  note?: string;
  path: string;
}

/** An image the user attached to a message (fitted to the model's limits). */
export interface AttachedImage {
  bytes: Uint8Array;
  mediaType: string;
}

/** What the workspace's model takes as images: whether at all, the longest edge and the size an image is fitted to. */
export interface ImageLimits {
  accepts: boolean;
  maxEdge: number;
  maxBytes: number;
  why?: string;
}

/** What an undo or a redo did, or the conflicts it asks about first. */
export interface TakeBackResult {
  ok: boolean;
  message: string;
  conflicts?: string[];
}

/** How an undo or a redo treats what someone else changed since: ask first, overwrite it, or keep it. */
export type ConflictChoice = 'ask' | 'overwrite' | 'keep';

/**
 * The conversation rules the chat draws by (web/app/conversation-rules.js): which events the
 * transcript leaves out or folds or joins, which reply offers Regenerate and which Continue.
 */
export interface TranscriptRules {
  retriedAttempts(events: readonly ClawserEvent[]): Set<string>;
  providerAttemptRuns(events: readonly ClawserEvent[]): Map<string, EventOf<'provider_attempt'>[]>;
  stoppedLastReply(events: readonly ClawserEvent[]): string | null;
  regenerable(event: ClawserEvent): boolean;
  /** Stopped replies and their continuations, shown as one message each. */
  continuedReplies(events: readonly ClawserEvent[]): {
    joined: Map<string, EventOf<'agent_message'>[]>;
    hidden: Set<string>;
    open: string | null;
  };
  joinedInto(joined: Map<string, EventOf<'agent_message'>[]>, id: string | null): string | null;
  joinReplyText(texts: string[]): string;
}

/** The live sub-agents the chat shows as cards (the workspace's delegation board). */
export interface DelegationCardsSource {
  list(): DelegationState[];
  get(id: string): DelegationState | undefined;
  subscribe(fn: () => void): () => void;
}

/** What the chat view and the workspace view subscribe to. */
export interface ChatStateSource {
  subscribe(fn: (state: ChatState) => void): () => unknown;
}

/**
 * What the chat view uses of its controller: the app's ChatController, or the first view's
 * stand-in before the app has loaded (web/app/workspace-first-view.js).
 */
export interface ChatViewController extends ChatStateSource {
  /** A turn is running in the conversation on screen. */
  readonly busy: boolean;
  readonly delegations: DelegationCardsSource | undefined;
  readonly rules: TranscriptRules;
  imageLimits(): ImageLimits;
  /** The commands the composer's "/…" completes to (skills, MCP prompts). */
  slashCompletions(text: string): Promise<SlashCompletion[]>;
  /** Makes a choice of the chat header's model menu the workspace's model (through its settings). */
  setModel(id: string): Promise<void>;
  /** An attached image of the conversation on screen, as a blob: URL (the caller revokes it). */
  imageUrl(ref: ImageRef): Promise<string>;
  /** A draft's size in tokens for the workspace's model. */
  estimateTokens(text: string): number;
  /** The agents "@…" completes to. */
  mentionCompletions(text: string): Promise<{ name: string; description: string }[]>;
  send(text: string, images?: AttachedImage[]): Promise<unknown>;
  stop(): void;
  select(id: string): Promise<void>;
  retry(): Promise<unknown>;
  edit(eventId: string, text: string): Promise<unknown>;
  regenerate(eventId: string): Promise<unknown>;
  continueReply(): Promise<unknown>;
  loadEarlier(): Promise<void>;
  switchVersion(eventId: string, step: -1 | 1): Promise<void>;
  undoTurn(options?: { conflicts?: ConflictChoice }): Promise<TakeBackResult>;
  redoTurn(options?: { conflicts?: ConflictChoice }): Promise<TakeBackResult>;
  /** Runs a code block again (a code card's "Run again"); `signal` stops it. */
  runAgain(code: string, signal?: AbortSignal): Promise<{ ok: boolean; output: string; durationMs: number }>;
  pinRoute(hint: RouteHint | null): Promise<void>;
  cancelDelegation(id: string): void;
  detach(index: number): void;
  /**
   * Reads a document and attaches its text to the next message (kept in the workspace's
   * uploads/ folder); rejects with an error whose message says why not ("it is protected by a password").
   */
  attachDocument(file: Blob & { name: string }): Promise<AttachedDocument>;
}

// ── The home screen and the workspace view ──────────────────────────────────────────────────

/** A workspace as its views show it (the app's workspace records). */
export interface WorkspaceSummary {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt?: number;
}

// ── Settings ────────────────────────────────────────────────────────────────────────────────

/** One line of the first-run card: a provider that needs no key here (the app's setupChoices()). */
export interface SetupChoice {
  provider: string;
  title: string;
  detail: string;
  /** The button's label. */
  action: string;
  /** null while it is looked for. */
  usable: boolean | null;
  /** The model to choose with it (the first one found). */
  model?: string;
  /** A test provider (offered last, as the secondary choice). */
  test: boolean;
  /** Not found: the button that opens where it is set up. */
  setUpAction?: string;
}

/** The workspace's provider, model and base URL as the settings dialog reads and saves them. */
export interface ProviderChoice {
  provider: string;
  model: string;
  baseUrl: string;
  /** "Through my relay": the user's machine whose wsh relay its requests go through; absent: direct. */
  relay?: string;
}

/** The fallback chain, routing hints, retries, cache and time-outs ("When the provider fails"). */
export interface ProviderChain {
  fallbacks: ProviderChoice[];
  routes: Partial<Record<RouteHint, ProviderChoice>>;
  retries: number;
  cache: 'deterministic' | 'always' | 'off';
  timeouts: { connectSeconds: number; firstByteSeconds: number; gapSeconds: number };
}

/** The agent settings the settings dialog shows and changes (the rest of the record it hands back as it got it). */
export interface AgentSettingsFields {
  autonomy: AutonomyConfig;
  compactionThresholdTokens: number;
  allowedPrivateHosts: string[];
  maxIterations: number;
  maxToolResultChars: number;
  tools: { maxReadBytes: number; maxWriteBytes: number };
  leakAction: 'redact' | 'warn' | 'block';
  safetyEnabled: boolean;
  providers: ProviderChain;
}

/** The limit fields of the settings dialog, as typed. */
export type LimitFieldName = 'allowedPrivateHosts' | 'maxIterations' | 'maxToolResultChars' | 'maxReadKiB' | 'maxWriteKiB';

/** Checks the limit fields: their values, or a message a user can act on per field. */
export type ParseLimits = (raw: Record<LimitFieldName, string>) =>
  | {
      ok: true;
      value: {
        allowedPrivateHosts: string[];
        maxIterations: number;
        maxToolResultChars: number;
        maxReadBytes: number;
        maxWriteBytes: number;
      };
    }
  | { ok: false; errors: Partial<Record<LimitFieldName, string>> };

/** A model on this computer, as the settings dialog's "Models on this computer" lists it. */
export interface LocalModelRow {
  id: string;
  name: string;
  bytes: number;
  architecture: string;
  parameters: number;
  quantisation: string | null;
  contextLength: number | null;
  /** The context it is loaded with (within the memory its KV cache may take). */
  loadedContext: number;
  /** The backend it runs on, when it is loaded in this page now ("WebAssembly, 4 threads"). */
  runsOn: string | null;
  /** What it would run on in this page, chosen as a load chooses (null: not known yet). */
  willRunOn: string | null;
  /**
   * The file's chat template, by its family ("ChatML", "Llama 3"; "Custom": none known; null: the
   * file has none); `callsTools`: the template renders tools (the model was trained to call them).
   */
  chatTemplate: string | null;
  callsTools: boolean;
  /** Where it was downloaded from. */
  source: string | null;
  /** The workspaces that run this model: as their provider, a fallback, a routing hint ('fast route'). */
  usedBy: { id: string; name: string; as: string[] }[];
}

/**
 * A download or an import: `checking` (its address, before anything is written), `running` (in
 * this page), `background` (the browser's Background Fetch), `stopped` (what came is kept; Resume
 * or Discard), `failed` (only Discard).
 */
export interface ModelTransfer {
  id: string;
  kind: 'download' | 'import';
  label: string;
  received: number;
  total: number | null;
  state: 'checking' | 'running' | 'background' | 'stopped' | 'failed';
  message: string | null;
  canResume: boolean;
}

export interface LocalModelsState {
  /** False until the models were read once. */
  loaded: boolean;
  models: LocalModelRow[];
  transfers: ModelTransfer[];
  /** The last failure, in words a user can act on. */
  error: string | null;
  notice: string | null;
  /** The browser can download in the background (Background Fetch). */
  backgroundFetch: boolean;
}

/** What the Models list does (the app's ModelLibrary): one per page, shared by every dialog. */
export interface LocalModelsController {
  state(): LocalModelsState;
  /** Called after every change; returns what stops it. */
  subscribe(fn: () => void): () => void;
  refresh(): Promise<void>;
  importFiles(files: File[]): Promise<void>;
  download(url: string, options: { background: boolean }): Promise<void>;
  stop(id: string): void;
  resume(id: string): Promise<void>;
  discard(id: string): Promise<void>;
  remove(id: string): Promise<void>;
}

/** The tool settings the Tools panel shows. */
export interface ToolSettingsView {
  tools: { fetchAllowlist: string[]; searchEndpoint: string };
}

/** One built tool as the Tools panel lists it (web/tools/builder/store.js). */
export interface BuiltToolRow {
  name: string;
  /** registered: approved and callable; pending: waits for the user's approval; problem: cannot be registered; off: its skill is off */
  state: 'registered' | 'pending' | 'problem' | 'off';
  problem?: string;
  description?: string;
  /** What it may reach, in words. */
  reaches?: string;
  permission?: string;
  /** The current version. */
  version?: number;
  code?: string;
  versions: { version: number; createdAt: number; by: 'agent' | 'user' }[];
}

/** The tool builder as the Tools panel uses it. */
export interface BuiltToolsControl {
  rows(): BuiltToolRow[];
  /** Defines a tool (or a new version of one) from the panel's form: the user's own, so it is approved as saved. */
  define(input: Record<string, unknown>): Promise<{ name: string; version: number }>;
  approve(name: string): Promise<void>;
  restore(name: string, version: number): Promise<unknown>;
  remove(name: string): Promise<void>;
}

/** Whether the companion extension (the browser's other tabs) is there, as the Tools panel shows it. */
export type CompanionStatusView =
  | { state: 'connected'; id: string; version: string; commands: string[]; clawserOrigins: string[] }
  | { state: 'missing' | 'error'; id: string; message: string };

/** The Tools panel's section for the companion extension: its status, and the sites the tab tools may use. */
export interface CompanionControl {
  status: () => Promise<CompanionStatusView>;
  lists: { tabSitesAllow: string[]; tabSitesDeny: string[]; companionId: string };
  onSave: (lists: { tabSitesAllow: string[]; tabSitesDeny: string[]; companionId: string }) => Promise<void>;
}

/** A problem of the Config panel's document: the field it is about, and what to do. */
export interface ConfigProblem {
  path: string;
  message: string;
}

// ── Files, git, the artifact ────────────────────────────────────────────────────────────────

/** A file as the Files panel opens it: text (editable when not too big), an image, or binary. */
export type OpenedFile =
  | { path: string; size: number; kind: 'text'; text: string; editable: boolean }
  | { path: string; size: number; kind: 'image'; mediaType: string; bytes: Uint8Array }
  | { path: string; size: number; kind: 'binary' };

/** What the Files panel does with the workspace's files (the app's FilesController). */
export interface FilesPanelController {
  /** Called after every change made through it. */
  subscribe(fn: () => void): () => unknown;
  /** A path's extension, lowercase ("md"), or "". */
  extensionOf(path: string): string;
  /** Folders first, then files, by name; Clawser's own folders hidden. */
  list(dir?: string): Promise<(DirEntry & { path: string; size?: number })[]>;
  open(path: string): Promise<OpenedFile>;
  readBytes(path: string): Promise<Uint8Array>;
  /** Resolves to the file's size once saved, in bytes. */
  save(path: string, text: string): Promise<number>;
  /** Resolves to the path made. */
  create(path: string, kind: 'file' | 'directory'): Promise<string>;
  /** Renames or moves (never over something that exists); resolves to the new path. */
  move(from: string, to: string): Promise<string>;
  remove(path: string): Promise<void>;
  /** Existing files are replaced only with `replace`; otherwise reported as skipped. */
  upload(
    dir: string,
    files: { name: string; bytes: () => Promise<Uint8Array> }[],
    options?: { replace?: boolean },
  ): Promise<{ written: string[]; skipped: { name: string; reason: string }[] }>;
  exportZip(dir?: string): Promise<Uint8Array>;
  importZip(dir: string, bytes: Uint8Array): Promise<{ written: string[]; refused: { name: string; reason: string }[] }>;
}

/** The Git panel's state (the workspace repository's, and what runs). */
export interface GitState {
  loading: boolean;
  isRepo: boolean;
  branch: string | null;
  branches: string[];
  /** Files with any difference (working copy, index or HEAD). */
  changes: FileStatus[];
  log: CommitInfo[];
  remotes: { remote: string; url: string }[];
  /** What is running ("Pushing…"). */
  busy: string | null;
  /** The last outcome, for a status line. */
  message: string | null;
}

/** What the Git panel does with the repository (the app's GitController). */
export interface GitPanelController {
  subscribe(fn: (state: GitState) => void): () => unknown;
  refresh(): Promise<void>;
  init(): Promise<unknown>;
  stage(paths: string[]): Promise<unknown>;
  unstage(paths: string[]): Promise<unknown>;
  commit(message: string): Promise<unknown>;
  /** The commit message typed and not committed yet (kept while the workspace is open, beyond one panel). */
  draft: string;
  diffFile(path: string): Promise<FileDiff>;
  diffCommit(oid: string): Promise<FileDiff[]>;
  createBranch(name: string, checkout: boolean): Promise<unknown>;
  switchBranch(name: string, force?: boolean): Promise<unknown>;
  deleteBranch(name: string): Promise<unknown>;
  restore(oid: string, filepath?: string): Promise<unknown>;
  /** token: undefined keeps the saved one, null removes it. */
  saveRemote(next: { url?: string; token?: string | null; corsProxy?: string }): Promise<void>;
  pull(): Promise<unknown>;
  push(): Promise<unknown>;
}

/** The agent's artifact (sanitized HTML) the artifact pane shows as it changes. */
export interface ArtifactSource {
  readonly html: string;
  subscribe(fn: (html: string) => void): () => unknown;
}

/** What the model made, by the language of its fenced block. */
export type ArtifactKind = 'html' | 'svg' | 'mermaid' | 'csv';

/** An artifact version on screen: its file (artifacts/…/v<N>.<ext>), what it holds, and the page the frame shows. */
export interface ArtifactShown {
  name: string;
  kind: ArtifactKind;
  version: number;
  /** How many versions it has. */
  versions: number;
  path: string;
  content: string;
  /** What the frame renders: the HTML page (SVG and CSV made into one), or the Mermaid source. */
  page: string;
  mediaType: string;
  /** The name an export downloads as ("html-1-v2.html"). */
  fileName: string;
}

/** The workspace's artifacts as the pane beside the chat shows them (the app's ArtifactShelf). */
export interface ArtifactShelfSource {
  readonly current: ArtifactShown | null;
  subscribe(fn: () => void): () => unknown;
  /** Shows the version before (-1) or after (1) the one on screen. */
  step(step: -1 | 1): Promise<void>;
  /** The names of the artifacts of the same conversation, and showing one of them (its latest version). */
  others(): Promise<string[]>;
  open(name: string): Promise<void>;
  /** Mermaid's source, for the frame to import. */
  library(): Promise<string>;
  close(): void;
}

// ── The Remote panel: a workspace exposed over MCP ───────────────────────────────────────────

/** Whether the workspace is exposed now, in words, and the MCP address outside clients use. */
export interface McpExposureStatus {
  state: 'off' | 'starting' | 'on' | 'error';
  message: string;
  url: string | null;
}

/** What the Remote panel needs to expose its workspace over MCP (the app's McpServe satisfies it). */
export interface McpExposureControl {
  settings(): { machine: string | null; tools: string[]; tokens: { id: string; label: string; createdAt: number }[] };
  availableTools(): { name: string; description: string; permission: string }[];
  setMachine(machine: string | null): void;
  setTools(tools: string[]): void;
  /** The token itself, returned once (only its SHA-256 is kept). */
  createToken(label: string): Promise<string>;
  revokeToken(id: string): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): McpExposureStatus;
  onChange(fn: () => void): () => void;
}

/** A workspace's channels as the Channels panel works them (web/app/channels.js satisfies it). */
export interface ChannelsControl {
  list(): import('../channels/channel.js').Channel[];
  status(id: string): import('../channels/poller.js').PollStatus | null;
  traffic(id: string): import('../channels/channel.js').Traffic[];
  add(input: import('../channels/store.js').ChannelInput): Promise<import('../channels/channel.js').Channel>;
  remove(id: string): Promise<void>;
  setPaused(id: string, paused: boolean): Promise<void>;
  /** What to tell the user when it works; throws with a message to show when not. */
  test(id: string): Promise<string>;
  /** An incoming webhook's address (its token in it: shown on request only). */
  address(id: string): Promise<string>;
  onChange(fn: () => void): () => void;
}

/** A device the user picked for the hardware tools, as the Devices section shows it. */
export interface DeviceRowView {
  id: string;
  label: string;
  open: boolean;
}

/** The Tools panel's Devices section: the devices picked, and revoking one. */
export interface DevicesControl {
  supported: boolean;
  list: () => Promise<DeviceRowView[]>;
  forget: (id: string) => Promise<void>;
  /** The kinds this browser can pick (its chooser opens from the person's click). */
  kinds: DeviceKind[];
  /** Opens the kind's chooser (Bluetooth: with the GATT services named); null when the person picked nothing. */
  pick: (kind: DeviceKind, services?: string) => Promise<DeviceRowView | null>;
}

export type DeviceKind = 'serial' | 'hid' | 'usb' | 'bluetooth';
