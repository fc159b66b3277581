import type { ZodType } from 'zod';
import type { FileSystem } from '../storage/types.d.ts';

export type PermissionLevel = 'internal' | 'read' | 'write' | 'network' | 'browser';
export type ToolPolicy = 'auto' | 'approve' | 'denied';

/** Everything a tool may use; nothing else (no globals reached into). */
export interface ToolContext {
  workspaceId: string;
  /** The workspace's files, rooted at clawser_workspaces/{wsId}/. */
  fs: FileSystem;
  signal?: AbortSignal;
  /** UI services the host provides; absent in headless use, and tools then say so. */
  ui?: ToolUi;
  /** Tool settings of the workspace (size caps, allowlists, search endpoint). */
  settings: ToolSettings;
  /** fetch used by network tools (injectable for tests). */
  fetch: typeof fetch;
  /** The workspace repository shared with the git panel (one command queue); tools make one from `fs` otherwise. */
  git?: import('../git/git.js').WorkspaceGit;
  /** The workspace's goals (goal_* tools), shared with the goals panel. */
  goals?: import('../stores/goals.js').GoalStore;
  /** The workspace's long-term memory (memory_* tools). */
  memory?: import('../memory/store.js').MemoryStore;
  /** The workspace's scheduled jobs (schedule_* tools), shared with the scheduler panel. */
  scheduler?: import('../stores/scheduler.js').Scheduler;
  /** The conversation the call comes from (where scheduled prompts run by default). */
  conversationId?: string;
  /** Names of the tools registered (to check a scheduled tool call). */
  toolNames?: string[];
  /**
   * Where a workspace file's content came from when it came from outside (a cloned repository,
   * a folder opened from the computer): a phrase such as "a file of the repository cloned from
   * https://…", or null for the user's own files. `path` omitted: the workspace as a whole
   * (commit messages, diffs); null there means no file of it is outside content (the shell asks
   * once per line before it asks per file). Absent: no file counts as outside content.
   */
  contentOrigin?: (path?: string) => Promise<string | null>;
  /** The page's key-value storage without Clawser's keys (storage_* tools); default: localStorage. */
  pageStorage?: import('../storage/page-storage.js').PageStorage;
  /**
   * Runs JavaScript in the conversation's sandbox, tools granted through the same gates (run_js);
   * `only` limits the tools it may call (a skill's allowed-tools), `isolated` runs it in a sandbox
   * of its own (started for it, then discarded), `adapt: false` runs it exactly as written.
   */
  runCode?: (
    code: string,
    signal?: AbortSignal,
    options?: { only?: string[]; isolated?: boolean; adapt?: boolean },
  ) => Promise<{ ok: boolean; output: string }>;
  /**
   * Runs Python in the conversation's Python sandbox (run_python): `files` mounted at /workspace,
   * read-only unless `writable`; a writable run returns the files it wrote (the tool saves them
   * through `callTool`). `onOutput` gets printed lines as they come.
   */
  runPython?: (
    code: string,
    options: {
      files: { path: string; data: Uint8Array }[];
      writable: boolean;
      signal?: AbortSignal;
      timeoutMs?: number;
      onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
    },
  ) => Promise<{
    ok: boolean;
    logs: string[];
    value: unknown;
    error: { name: string; message: string } | null;
    written: { path: string; data: Uint8Array }[];
    deleted: string[];
    durationMs: number;
  }>;
  /**
   * Calls another tool through the same gates as this call (the shell's `clawser` command, its
   * `curl`): autonomy, policy, approval, taint, and this call's bound — a skill script's
   * allowed-tools — narrowed further by `options.only`. Absent: such commands are not available.
   */
  callTool?: (
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    options?: { only?: string[] },
  ) => Promise<{ ok: boolean; output: string }>;
  /**
   * The bound this call runs under — a skill script's allowed-tools — when it has one (set by the
   * ToolRunner). The shell gives such calls a session of their own: nothing a script leaves in a
   * shell (a function, an alias) runs later in the agent's unbounded session.
   */
  only?: string[];
  /**
   * Marks the turn as having taken in outside content now, while this call runs — the moment it
   * enters (the shell when `curl` returns, when a file of a cloned repository is read), not when
   * the call ends — so every later command of the same line and every later call sees it.
   * `what` in words ("a web page fetched by curl (https://…)"), `detail` the path or URL.
   * Set by the ToolRunner for each call.
   */
  taint?: (what: string, detail?: string) => void;
  /** Asks the gates whether a call may run, without running it (the shell's `curl` as a web_fetch): null when it may, else why not. */
  authorizeTool?: (
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    options?: { only?: string[] },
  ) => Promise<string | null>;
  /** Reports how far a running call is, for the chat ("3/10 — indexing"). */
  progress?: (text: string) => void;
  /** The named agent or sub-agent whose turn this is (absent: the workspace's own agent). */
  agentName?: string;
  /** The id of the call being run (set per call by the agent's loop). */
  callId?: string;
  /**
   * Runs a sub-agent (agent_delegate) in a child conversation: never with more tools or autonomy
   * than this call's agent. Absent: delegation is not available (a scheduled tool job, the terminal).
   */
  delegate?: (
    args: { agent?: string; task: string; context?: string; tools?: string[] },
    call: { callId: string; signal?: AbortSignal },
  ) => Promise<ToolResult>;
  /** The workspace's MCP servers (their prompts, for "/mcp__server__prompt"). */
  mcp?: import('../mcp/manager.js').McpManager;
  /** The workspace's installed skills (skill_* tools), shared with the Skills panel. */
  skills?: import('../skills/store.js').SkillStore;
  /** The workspace's built tools (tool_define), shared with the Tools panel. */
  builtTools?: import('./builder/store.js').BuiltToolStore;
  /** The user's own machines reached through wsh (remote_* tools), shared with the Remote panel; loaded on first use. */
  remote?: () => Promise<import('../stores/remote-machines.js').RemoteMachines>;
  /**
   * The workspace's services, the same object every panel gets (web/app/workspace-services.js:
   * its stores, files, git, MCP servers, terminal, search by meaning…). A tool that needs a
   * service reads it here: a new service is added there once, never mapped into this context by
   * hand. The fields above (git, memory, goals…) are the services tools took before, kept as they
   * were. Absent in headless use (the public API's agent, tests), where a tool says what it lacks.
   * A type only: the app's Services satisfy it, nothing here loads the app.
   */
  services?: import('../app/workspace-services.js').Services;
  /** The companion extension that reaches the browser's other tabs (tab_* tools); absent where no page can reach it. */
  companion?: import('../net/companion.js').CompanionClient;
}

export interface ToolUi {
  askUser(question: string, options?: { choices?: string[] }): Promise<string | null>;
  notify(title: string, body: string): Promise<'shown' | 'denied' | 'unsupported'>;
  openTab(url: string): boolean;
  clipboardRead(): Promise<string>;
  clipboardWrite(text: string): Promise<void>;
  screenInfo(): Record<string, unknown>;
  screenshot(): Promise<{ dataUrl: string; width: number; height: number }>;
  /**
   * Asks the user, in Clawser's dialog, to pick a device: the dialog's button calls `request`
   * (which opens the browser's own chooser) from the user's click. The device picked, or null
   * when the user declined or picked none. Absent: no one can be asked (headless use).
   */
  pickDevice?<T>(question: string, request: () => Promise<T>): Promise<T | null>;
  artifact: ArtifactPane;
}

export interface ArtifactPane {
  setHtml(html: string): Promise<void>;
  query(selector: string): Promise<{ count: number; items: { tag: string; text: string; html: string }[] }>;
  modify(
    selector: string,
    action: 'set_text' | 'set_html' | 'append_html' | 'remove' | 'set_attribute',
    value?: string,
    attribute?: string,
  ): Promise<number>;
}

export interface ToolSettings {
  maxReadBytes: number;
  maxWriteBytes: number;
  maxFetchChars: number;
  fetchAllowlist: string[];
  /** Private / loopback hosts (host or host:port) network tools may reach, from the agent settings. */
  allowedPrivateHosts: string[];
  searchEndpoint: string;
  searchApiKey: string;
  /** Sites (hosts, with their subdomains) the tab_* tools may use; empty: any not denied. */
  tabSitesAllow: string[];
  /** Sites the tab_* tools never read or act on, whatever the allow list says. */
  tabSitesDeny: string[];
  /** The companion extension's id when it is not the repository's (a Web Store or an organization's copy); '' for the default. */
  companionId: string;
}

export interface ToolResult {
  ok: boolean;
  /** Text the model sees. */
  output: string;
  /** An image for vision-capable providers. */
  image?: { mediaType: string; dataUrl: string };
  /**
   * The result carries untrusted content from outside, in words ("a file of the repository cloned
   * from …"), when the tool knows it only at run time (see ToolDefinition.untrusted).
   */
  untrusted?: string;
  /**
   * What the call spent on the turn's behalf, in cents (a sub-agent's model calls): it counts in
   * the turn's cost (the reply's costs, self-repair's cost budget).
   */
  costCents?: number;
  /** Events for the conversation's log (memory_stored, goal_added, scheduler_added, …). */
  events?: import('../agent/events.d.ts').ToolEvent[];
}

export interface ToolDefinition {
  name: string;
  /**
   * The identity the user's choices for this tool (its policy, "Always allow", narrowed rules)
   * are stored under, when it is not the name: an MCP server's tool is keyed by its server's id
   * and address and its own name (`mcp:{id}:{address digest}:{tool}`), so a choice never passes
   * to another server's tool that takes the same name. Never a valid tool name.
   */
  policyKey?: string;
  description: string;
  permission: PermissionLevel;
  /**
   * The tool creates or changes standing state: something that outlives the turn and enters
   * later prompts or runs without the user (memories, goals, scheduled jobs, skills). Such a
   * tool is refused at read-only autonomy, asks at supervised autonomy unless the user chose
   * "Always allow" for it, and always asks — whatever the policy — in a conversation that has
   * taken in untrusted content (see `untrusted`).
   */
  standing?: boolean;
  /**
   * The tool sends what it is given out of Clawser to someone (a message through a channel), in
   * words for the approval dialog ("send a message out of Clawser through a channel"). Like a
   * `standing` tool, it always asks — whatever the policy, with no "Always allow" — in a
   * conversation that has taken in untrusted content: text from outside must not carry the
   * conversation out (exfiltration). Its autonomy and default policy are its permission's.
   */
  outbound?: string;
  /**
   * Every result of this tool is untrusted content from outside, in words ("a web page",
   * "clipboard text"): it taints the conversation (see `standing`). MCP tools and skill scripts
   * carry it too.
   */
  untrusted?: string;
  /**
   * The tool only reads the workspace's own state (its files, stores, page storage) and changes
   * nothing, not even the turn (no event, no sub-agent, no page or network): a line the shell runs
   * as read-only may call it through `clawser`, and a `clawser` verb bound to it is a read-only
   * command. Only a tool whose permission is 'read' may say so (families.js refuses it otherwise).
   */
  readOnly?: boolean;
  /**
   * The tool runs code it is given: 'sandbox' JavaScript in the sandbox (run_js, a skill's
   * script), 'bash' lines of the workspace's virtual bash (the shell). Code never starts more code
   * in the sandbox (the Codex leaves out every 'sandbox' tool), a shell line calls none of them
   * (its `clawser` refuses each), and a 'bash' tool's `input` is checked as a line of the virtual
   * bash (the safety check), whatever their names.
   */
  runsCode?: 'sandbox' | 'bash';
  /** Arguments schema; its JSON Schema is what providers see. */
  schema: ZodType;
  /** The JSON Schema providers see, when the tool brings its own (an MCP server's tool); `schema` then only checks it is an object. */
  jsonSchema?: Record<string, unknown>;
  /** The tool runs outside code (a skill's script): its `untrusted` taint applies from the start, to the calls it makes while running. */
  taintsBeforeRun?: boolean;
  /**
   * The permission of one call when it depends on the arguments (the shell: a line of read-only
   * commands is 'read', anything else 'write'). Autonomy and the default policy use it.
   */
  permissionFor?(args: any, ctx?: ToolContext): PermissionLevel;
  /** Loads what `permissionFor` / `scopeTargets` need (the shell's parser); the runner awaits it before the gates. */
  ready?(): Promise<void>; // args were validated against `schema`
  /**
   * What one call touches, for approval rules narrowed to a command prefix, a domain or a path
   * glob (see approval-rules.js); null: nothing a rule can cover. Default: a `url` or `path` argument.
   */
  // args were validated against `schema`
  scopeTargets?(args: any, ctx?: ToolContext): { kind: 'command' | 'domain' | 'path' | 'device'; targets: string[] } | null;
  /** Asked for on every call, whatever the policy, and "Always allow" is not offered (an MCP tool its server marks destructive). */
  alwaysAsk?: string;
  /** Calls of this tool next to each other in one reply run at the same time (sub-agents). */
  parallel?: boolean;
  /**
   * A call mostly waits on other agents, which watch their own time (sub-agents): the time it
   * takes is not the calling run's own (self-repair's time budget).
   */
  waitsOnOthers?: boolean;
  run(args: any, ctx: ToolContext): Promise<ToolResult>; // args were validated against `schema`
  /**
   * What a call will do, in words, shown when the user is asked to approve it (e.g. the next run
   * times of a schedule). A thrown error is shown instead (the call may still be approved).
   */
  preview?(args: any, ctx: ToolContext): string | Promise<string>; // args were validated against `schema`
}

/**
 * A family of built-in tools: one module of web/tools/ exporting it as `family`, listed once in
 * web/tools/families.js. Everything else — the registry's tools, the `clawser` command's verbs,
 * its help and usage errors, the shell's read-only `clawser` verbs — derives from it.
 */
export interface ToolFamily {
  /** A lowercase word, unique among the families (`memory`). */
  id: string;
  /** Its tools, the same definitions in every registry… */
  tools?: ToolDefinition[];
  /** …or, instead, made for each registry (the shell keeps its sessions per registry). */
  create?: () => ToolDefinition[];
  /** Verbs of the shell's `clawser` command, each bound to one of the family's tools. */
  cli?: CliVerb[];
}

/**
 * A verb of `clawser`: the words of a line become one call of a tool of its family. Whether it
 * is a read-only command is not declared here: it is, when its tool's permission is 'read' and the
 * tool is `readOnly`.
 */
export interface CliVerb {
  /** `area action`, two lowercase words (`memory add`). */
  verb: string;
  /** The name of the tool it calls, one of its family's. */
  tool: string;
  /**
   * The tool's arguments taken from the words in order; the last may end in `...` to take every
   * word left, joined by spaces. Without one ending in `...`, each word must be non-empty; with
   * one, there must be as many words as names.
   */
  args?: string[];
  /** Options with a value: argument name → its flags (`{category: ['--category', '-c']}`); an empty value is left out. */
  options?: Record<string, string[]>;
  /** Arguments the verb always gives (`goal done`: `{status: 'completed'}`). */
  fixed?: Record<string, unknown>;
  /** What `clawser help` shows after the action (`<key> <text> [--category …]`; '' for nothing). */
  usage: string;
  /** What a usage error shows after the verb, when it is not `usage`. */
  usageError?: string;
}
