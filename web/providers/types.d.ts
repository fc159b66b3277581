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
  maxTokens?: number;
  temperature?: number;
}

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

export type StreamEvent =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'tool_call'; id: string; name: string; arguments: Record<string, unknown>; signature?: string }
  | { type: 'usage'; inputTokens: number; outputTokens: number; cachedInputTokens?: number; cacheWriteTokens?: number }
  | { type: 'status'; text: string }
  | ({ type: 'attempt' } & ProviderAttempt)
  | { type: 'cache_hit'; provider: string; model: string; ageMs: number }
  | { type: 'done'; stopReason: StopReason }
  | { type: 'error'; error: ProviderErrorShape };

export interface CallOptions {
  signal?: AbortSignal;
  /** Called once when the server answered (HTTP headers received), before the first event. */
  onConnected?: () => void;
  /** Ask the model again: no answer from the response cache (a regenerated reply). */
  fresh?: boolean;
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
  /** Catalog id, e.g. 'openai', 'ollama'. */
  readonly id: string;
  readonly model: string;
  /** False for providers whose tools run through the Codex (code blocks) instead. */
  readonly supportsNativeTools: boolean;
  /** Accepts images in messages. */
  readonly supportsVision?: boolean;
  /** Calls `onConnected` when the server answers (HTTP providers): the connect time-out applies. */
  readonly connects?: boolean;
  chat(request: ChatRequest, options?: CallOptions): Promise<ChatResult>;
  chatStream(request: ChatRequest, options?: CallOptions): AsyncIterable<StreamEvent>;
}

export type WireFormat = 'echo' | 'chrome-ai' | 'openai' | 'anthropic' | 'gemini' | 'openai-responses' | 'ollama';

export interface CatalogEntry {
  id: string;
  label: string;
  wire: WireFormat;
  /** Shown next to the label, e.g. "test provider — no AI". */
  note?: string;
  baseUrl?: string;
  needsKey: boolean;
  /** Runs on this machine (Ollama, LM Studio) or in the browser. */
  local: boolean;
  defaultModel: string;
  models: string[];
  /** Accepts stream_options.include_usage (OpenAI wire). */
  streamUsage?: boolean;
  /** Where to get a key. */
  keyUrl?: string;
  /** Extra hint when the browser is blocked by CORS. */
  corsHelp?: string;
  /** The host accepts images in messages. */
  vision?: boolean;
  /** false: no native tool calling (tools go through the Codex). Default true for HTTP wires. */
  nativeTools?: boolean;
}

export interface ProviderConfig {
  provider: string;
  model?: string;
  apiKey?: string;
  baseUrl?: string;
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
