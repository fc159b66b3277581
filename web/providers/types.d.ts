/** Shapes shared by every provider (one file per wire format implements them). */

export type Role = 'user' | 'assistant' | 'tool';

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed JSON arguments. When the model sent invalid JSON: `{ _raw: string }`. */
  arguments: Record<string, unknown>;
  /**
   * An opaque token the provider attached to the call (Gemini's `thoughtSignature`), sent back
   * with the call on the next request so the model keeps its reasoning; never shown.
   */
  signature?: string;
}

export interface ImagePart {
  mediaType: string;
  /** data: URL (base64). */
  dataUrl: string;
}

/** An image kept with a conversation: its file (relative to the conversation's folder) and type. */
export interface ImageRef {
  path: string;
  mediaType: string;
}

export interface Message {
  role: Role;
  content: string;
  toolCalls?: ToolCall[];
  toolCallId?: string;
  /** Images a tool returned (screenshots) or the user attached, sent only to vision-capable providers. */
  images?: ImagePart[];
  /** The user's attached images as stored with the conversation; loaded into `images` before a call. */
  imageRefs?: ImageRef[];
  /**
   * The message carries untrusted content from outside (a web page, a cloned repository's file),
   * in words. Kept with the history so the conversation stays tainted while it is in context;
   * never sent to a provider.
   */
  untrusted?: string;
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  messages: Message[];
  system?: string;
  tools?: ToolSpec[];
  /** Whether the model must call a tool (`required`), may (`auto`, the default), may not (`none`), or must call the one named. */
  toolChoice?: ToolChoice;
  maxTokens?: number;
  temperature?: number;
}

export type ToolChoice = 'auto' | 'required' | 'none' | { name: string };

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Of the input, tokens read from the provider's prompt cache (billed at the cached price). */
  cachedInputTokens?: number;
  /** Tokens written to the provider's prompt cache (Anthropic), billed above the input price. */
  cacheWriteTokens?: number;
}

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'aborted' | 'refusal' | 'unknown';

export interface ChatResult {
  content: string;
  toolCalls: ToolCall[];
  usage: Usage;
  model: string;
  stopReason: StopReason;
  /** Settings of the request the provider did not apply (absent or empty: none). */
  warnings?: CallWarning[];
}

export type ProviderErrorCode = 'auth' | 'rate_limit' | 'server' | 'network' | 'client' | 'cors' | 'aborted' | 'unknown';

export interface ProviderErrorShape {
  code: ProviderErrorCode;
  retryable: boolean;
  message: string;
  status?: number;
  /** How long the server asked to wait before retrying (its Retry-After), in ms. */
  retryAfterMs?: number;
}

/**
 * What a provider's stream yields: the reply's parts, in order. Text and reasoning carry the id
 * of the block or item they belong to where the wire has one (Anthropic's content block, the
 * Responses API's output item); a tool call carries the wire's call id (or one made up where the
 * wire gives none, so its result can answer it). One `finish` ends every stream that was not cut
 * (an `error` ends the others); settings the provider does not apply come first as `warning`s.
 * How the call went (tries, retries, cache hits, downloads) is not in it: see ProviderStatus.
 */
export type StreamPart =
  | { type: 'text'; text: string; id?: string }
  | { type: 'reasoning'; text: string; id?: string }
  | { type: 'tool_call'; id: string; name: string; arguments: Record<string, unknown>; signature?: string }
  | { type: 'warning'; setting: IgnoredSetting; message: string }
  | { type: 'finish'; stopReason: StopReason /** Absent where the wire reports no token counts (Chrome's Prompt API). */; usage?: Usage }
  | { type: 'error'; error: ProviderErrorShape };

/** @deprecated the first API's name of StreamPart */
export type StreamEvent = StreamPart;

/** A request setting a provider can leave unapplied (a warning part says which). */
export type IgnoredSetting = 'temperature' | 'maxTokens' | 'tools' | 'toolChoice' | 'images' | 'system';

/** A setting left unapplied, as a call's result lists them. */
export interface CallWarning {
  setting: IgnoredSetting;
  message: string;
}

/**
 * How a call is going, apart from the reply: each try of each provider (the reliability layer),
 * a wait before retrying or a move to the next provider (with the line the user reads), an
 * answer from the response cache, and a provider's own progress (a model downloading). Given to
 * `CallOptions.onStatus`, never mixed into the stream of parts.
 */
export type ProviderStatus =
  | ({ type: 'attempt' } & ProviderAttempt)
  | { type: 'retry'; provider: string; model: string; inMs: number; text: string }
  | { type: 'fallback'; provider: string; model: string; text: string }
  | { type: 'cache_hit'; provider: string; model: string; ageMs: number }
  | { type: 'progress'; text: string };

export interface CallOptions {
  signal?: AbortSignal;
  /** Called once when the server answered (HTTP headers received), before the first event. */
  onConnected?: () => void;
  /** Ask the model again: no answer from the response cache (a regenerated reply). */
  fresh?: boolean;
  /** Told how the call is going (ProviderStatus), as it happens; the stream carries only the reply. */
  onStatus?: (status: ProviderStatus) => void;
}

/** One try of one provider, as the reliability layer reports it (recorded as `provider_attempt`). */
export interface ProviderAttempt {
  provider: string;
  model: string;
  /** ok: it answered; failed: an error before any output; cut: an error after output; skipped: circuit open or unfit. */
  outcome: 'ok' | 'failed' | 'cut' | 'skipped' | 'aborted';
  /** 1-based try of this provider within the request. */
  attempt: number;
  latencyMs: number;
  code?: ProviderErrorCode;
  message?: string;
  /** The wait before the next try of the same provider. */
  retryInMs?: number;
}

export interface Provider {
  /** Its catalog entry's id. */
  readonly id: string;
  readonly model: string;
  /** False for providers whose tools run through the Codex (code blocks) instead. */
  readonly supportsNativeTools: boolean;
  /** Accepts images in messages. */
  readonly supportsVision?: boolean;
  /** Calls `onConnected` when the server answers (HTTP providers): the connect time-out applies. */
  readonly connects?: boolean;
  chat(request: ChatRequest, options?: CallOptions): Promise<ChatResult>;
  chatStream(request: ChatRequest, options?: CallOptions): AsyncIterable<StreamPart>;
  /**
   * The most tokens a request may hold, where the provider itself sets it (a local model loaded
   * with a context of its own); absent or null: the conversation is compacted by the settings alone.
   */
  contextWindow?(): Promise<number | null>;
}

/** How text is counted into tokens, by tokenizer family (tokens.js; the families are model-facts.js's). */
export type TokenFamily = keyof typeof import('./model-facts.js').TOKEN_FAMILIES | 'default';

/** What a wire format can do and needs, declared once in the registry (catalog.js). */
export interface WireCapabilities {
  /** How tools reach the model: native tool calls, or code blocks the Codex runs. */
  tools: 'native' | 'codex';
  /**
   * Images in messages: the longest edge they are scaled to and the largest encoded size taken,
   * and who says whether a model takes them: the provider (its `vision`) or the model (local
   * servers, by model family). null: no images.
   */
  images: { maxEdge: number; maxBytes: number; decidedBy: 'host' | 'model' } | null;
  /** Streams the model's reasoning (reasoning parts) when the model reasons. */
  reasoning: boolean;
  /** How its providers' tokens are counted where the model's name does not say. */
  tokenFamily: TokenFamily;
  /** The API key field: 'none' (no key: nothing leaves the browser) or 'accepted'. */
  key: 'none' | 'accepted';
  /** The base URL field: 'none' (not a server) or 'accepted'. */
  baseUrl: 'none' | 'accepted';
  /** In the page, or a server the page calls over HTTP (which reports when it connected). */
  runs: 'browser' | 'http';
  /** A model must be named (false: the wire has a model of its own). */
  needsModel: boolean;
  /** Lists the models a server offers (the provider's `listModels`). */
  listsModels: boolean;
  /** Downloads models into the server (the provider's `pullModel`). */
  pullsModels: boolean;
  /** Says whether it can run here before any call (the wire module's `availability()`). */
  availability: boolean;
  /** A test provider, no AI: offered to try the app; never a fallback, a route or an agent's model; never asked for a title. */
  test: boolean;
  /**
   * Asked for work nobody is waiting for (a conversation's title, a memory's summary). false: a
   * model run by this computer's CPU in the page, where such a request takes the machine from the
   * user's own turns (the title stays the first words; summaries go to the Fast hint's model, if set).
   */
  background: boolean;
  /**
   * Runs the model files the user imports into this browser (Settings → Models on this computer:
   * the model library attaches to the provider that says so), rather than models of its own.
   */
  modelFiles: boolean;
}

/** What a provider (a host of a wire) can do and needs: its wire's capabilities as the host narrows them. */
export interface ProviderCapabilities extends Omit<WireCapabilities, 'key' | 'baseUrl'> {
  /** 'none': no key field; 'required': no call without one; 'optional': sent when given. */
  key: 'none' | 'optional' | 'required';
  /** 'none': no base URL field; 'required': the provider has no address of its own. */
  baseUrl: 'none' | 'optional' | 'required';
  /** Runs on this machine or in the browser: costs nothing. */
  local: boolean;
}

/** What a wire's lazy factory loads: its module (web/providers/<wire id>.js). */
export interface WireModule {
  /** Makes a provider of one of the wire's hosts. */
  create(options: WireOptions): Provider;
  /** Whether it can run here (declared by `capabilities.availability`). perTab: an answer kept for the tab may do. */
  availability?(options?: { perTab?: boolean }): Promise<Availability>;
  /** Looks for a local server of the host (the first-run card), bounded by `timeoutMs`. */
  discover?(entry: CatalogEntry, deps: { fetchImpl?: typeof fetch; timeoutMs: number }): Promise<{ found: boolean; models: string[] }>;
}

/** Whether a provider can run here, in words. */
export interface Availability {
  usable: boolean;
  /** The wire's own state name (Chrome's 'available', 'downloadable', …). */
  state: string;
  text: string;
}

export interface WireOptions {
  entry: CatalogEntry;
  model: string;
  apiKey?: string;
  baseUrl?: string;
  fetchImpl?: typeof fetch;
  /** The Echo provider's pause between words (tests: 0). */
  echoDelayMs?: number;
}

/** A wire format as it declares itself in the registry. */
export interface WireDeclaration {
  /** Its code is web/providers/<id>.js. */
  id: string;
  capabilities: WireCapabilities;
  /** The lazy factory: imports the wire's module. */
  load(): Promise<WireModule>;
  /** Brings a base URL saved by an earlier version up to date ('' for the provider's own). */
  migrateBaseUrl?(baseUrl: string): string;
}

/** What the first-run card says of a provider that needs no key on this machine. */
export interface SetupTexts {
  title: string;
  /** Shown while it is looked for. */
  checking: string;
  /** The button that chooses it. */
  action: string;
  /** When found (default: what its availability says). */
  found?: string | ((models: string[]) => string);
  /** When not found (default: what its availability says). */
  missing?: string;
  /** When not found: the button that opens where it is set up (Settings). */
  setUpAction?: string;
}

/** What the search for a local provider found (discovery.js). */
export interface LocalFinding {
  provider: string;
  found: boolean;
  /** The models a server has (the first is chosen with it). */
  models: string[];
  /** What its availability says, in words (in place of the setup texts). */
  text?: string;
  /** Its wire's own state name (Chrome's). */
  state?: string;
}

/** A provider: a host speaking a wire, as the registry lists it. */
export interface HostDeclaration {
  id: string;
  label: string;
  wire: WireDeclaration;
  /** Shown next to the label, e.g. "test provider — no AI". */
  note?: string;
  baseUrl?: string;
  /** An address to give as an example where the provider has none of its own. */
  baseUrlExample?: string;
  needsKey: boolean;
  /** Runs on this machine (Ollama, LM Studio) or in the browser. */
  local: boolean;
  defaultModel: string;
  models: string[];
  /** Accepts stream_options.include_usage (OpenAI wire). */
  streamUsage?: boolean;
  /** The request field for the reply's token limit where it is not `max_tokens` (OpenAI's own API). */
  tokenLimitField?: 'max_completion_tokens';
  /** Where to get a key. */
  keyUrl?: string;
  /** Extra hint when the browser is blocked by CORS. */
  corsHelp?: string;
  /** A wrong key can look like a CORS block (the host answers it without CORS headers). */
  corsMayMeanBadKey?: boolean;
  /** The host accepts images in messages. */
  vision?: boolean;
  /** false: no native tool calling (tools go through the Codex). */
  nativeTools?: boolean;
  /** How its tokens are counted where the model's name does not say (default: the wire's). */
  tokenFamily?: TokenFamily;
  /** What the first-run card says of it (a local provider). */
  setup?: SetupTexts;
}

/** A provider as the app sees it: the registry's entry, its wire by id and its capabilities resolved. */
export interface CatalogEntry extends Omit<HostDeclaration, 'wire'> {
  /** The id of the wire it speaks. */
  wire: string;
  capabilities: ProviderCapabilities;
}

/**
 * What is known of a model (a family of model ids sharing a prefix): the record model-facts.js
 * keeps per model, from which prices, badges and context sizes are read.
 */
export interface ModelFacts {
  /** Context window in tokens. */
  context?: number;
  tools?: boolean;
  vision?: boolean;
  reasoning?: boolean;
  /** USD per million tokens: input, output, cached input, cache write (default: the input price). */
  price?: [input: number, output: number, cachedInput: number, cacheWrite?: number];
}

export interface ProviderConfig {
  provider: string;
  model?: string;
  apiKey?: string;
  baseUrl?: string;
  /** The user's machine whose wsh relay its requests go through ("through my relay"); absent: direct. */
  relay?: string;
}

/** A model a provider offers, with what it accepts (for the model picker's badges). */
export interface ModelInfo {
  id: string;
  label?: string;
  /** Context window in tokens, when the provider says. */
  contextTokens?: number;
  /** Native tool calling; undefined when unknown. */
  tools?: boolean;
  vision?: boolean;
  reasoning?: boolean;
  /** Size on disk in bytes (local models). */
  sizeBytes?: number;
}
