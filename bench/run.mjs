#!/usr/bin/env node
// `npm run bench`: measures load times, EventLog appends and conversation opening on the
// real OPFS in Chromium, and SSE parsing in Node. Prints one JSON object.
import { memoryBench } from './memory.mjs';
import { checkpointBench } from './checkpoint.mjs';
import { catchUpBench } from './catch-up.mjs';
import { localModelBench } from './local-model.mjs';
import { embeddingsBench } from './embeddings.mjs';
import { searchBench } from './search.mjs';
import { providersBench } from './providers.mjs';
import { mcpBench } from './mcp.mjs';
import { wshBench } from './wsh.mjs';
import { mcpServeBench } from './mcp-serve.mjs';
import { shellBench } from './shell.mjs';
import { pythonBench } from './python.mjs';
import { readPathBenchAlone } from './read-path.mjs';
import { sanitizerBench, injectionBench } from './injection.mjs';
import { performance } from 'node:perf_hooks';
import { launchBrowser, startApp } from '../tests/browser/helpers.mjs';
import { coldLoads, warmLoads } from './load-measure.mjs';
import { inPageBench } from './inpage.mjs';
import { parseSSE } from '../web/net/sse.js';
import { assembleOpenAIStream } from '../web/providers/openai.js';
import { ScriptedProvider } from '../tests/fixtures/scripted-provider.mjs';
import { ClawserAgent } from '../web/agent/runtime/agent.js';
import { ToolRunner } from '../web/agent/runtime/tool-runner.js';
import { HookPipeline } from '../web/agent/runtime/hooks.js';
import { AutonomyController } from '../web/agent/runtime/autonomy.js';
import { planCompaction } from '../web/agent/conversation/compaction.js';
import { ConversationStore } from '../web/agent/conversation/conversation-store.js';
import { MemoryFileSystem } from '../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../web/storage/scoped-fs.js';
import { SafetyPipeline } from '../web/safety/pipeline.js';
import { createBuiltinRegistry, toolSettings } from '../web/tools/index.js';
import { forwardProgress } from './page.mjs';

/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (/** @type {number} */ x) => Math.round(x * 100) / 100;

async function sseThroughput() {
  const enc = new TextEncoder();
  const chunk = {
    id: 'x',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta: { content: 'token text é ' }, finish_reason: null }],
  };
  const piece = `data: ${JSON.stringify(chunk)}\n\n`;
  const body = enc.encode(piece.repeat(Math.ceil((8 * 1024 * 1024) / piece.length)) + 'data: [DONE]\n\n');
  /** @type {Uint8Array[]} */
  const chunks = [];
  for (let i = 0; i < body.length; i += 16 * 1024) chunks.push(body.subarray(i, i + 16 * 1024));
  async function* source() {
    for (const c of chunks) yield c;
  }
  const runs = { parse: /** @type {number[]} */ ([]), assemble: /** @type {number[]} */ ([]) };
  for (let r = 0; r < 5; r++) {
    let t = performance.now();
    for await (const _ of parseSSE(source())) {
      // drained: the parse is what is timed
    }
    runs.parse.push(performance.now() - t);
    t = performance.now();
    for await (const _ of assembleOpenAIStream(parseSSE(source()), 'bench')) {
      // drained
    }
    runs.assemble.push(performance.now() - t);
  }
  const mb = body.length / (1024 * 1024);
  return { sseParseMBps: round(mb / (median(runs.parse) / 1000)), sseParseAndAssembleMBps: round(mb / (median(runs.assemble) / 1000)) };
}

async function browserBench() {
  const app = await startApp();
  process.stderr.write('bench: cold loads\n');
  const cold = await coldLoads(app.url, launchBrowser);
  const browser = await launchBrowser();
  try {
    const page = await browser.context.newPage();
    // Progress on stderr (stdout is the JSON), so a stall shows where it is.
    forwardProgress(page);
    const warm = await warmLoads(page, app.url);
    // Event-log appends, opening conversations, git and andbox, in the page (bench/inpage.mjs).
    const inPage = await inPageBench(page);
    // Each start-up time twice: the first view on screen (the targets) and the app taken over.
    const loads = { ...cold, ...warm };
    return {
      ...Object.fromEntries(Object.entries(loads).map(([k, v]) => [k, round(v)])),
      ...Object.fromEntries(Object.entries(inPage).map(([k, v]) => [k, round(v)])),
    };
  } finally {
    await browser.close();
    await app.close();
  }
}

/** Agent overhead per tool round trip (gates, events, history), with a model that answers at once. */
async function agentBench() {
  const rounds = 500;
  /** @type {import('../tests/fixtures/scripted-provider.mjs').ScriptedTurn[]} */
  // Each call reads another file: the same call repeated would be stopped as stuck (self-repair).
  const turns = Array.from({ length: rounds }, (_, i) => ({
    toolCalls: [{ id: `c${i}`, name: 'fs_read', arguments: { path: `notes/${i}.md` } }],
  }));
  turns.push({ text: 'done' });
  const fs = new MemoryFileSystem();
  for (let i = 0; i < rounds; i++) await fs.write(`clawser_workspaces/b/notes/${i}.md`, `note ${i}`);
  const store = new ConversationStore(fs, 'b');
  const registry = createBuiltinRegistry();
  const tools = new ToolRunner({
    registry,
    context: { workspaceId: 'b', fs: new ScopedFileSystem(fs, 'clawser_workspaces/b'), settings: toolSettings(), fetch: globalThis.fetch },
    hooks: new HookPipeline(),
    autonomy: new AutonomyController({ config: { level: 'full', maxActionsPerHour: 0, maxCostCentsPerDay: 0 } }),
    safety: new SafetyPipeline(),
  });
  const perRun = [];
  // Median of five turns of 500 round trips each, a fresh conversation each time.
  for (let run = 0; run < 5; run++) {
    const conversation = await store.open((await store.create()).id);
    const agent = new ClawserAgent({
      provider: new ScriptedProvider(turns),
      conversation,
      tools,
      maxIterations: rounds + 1,
      compaction: { thresholdTokens: 1e9, keepRecent: 10 },
    });
    const t = performance.now();
    const reply = await agent.run('go');
    perRun.push((performance.now() - t) / rounds);
    // A run that stopped early (an error, self-repair) would measure nothing.
    if (reply.text !== 'done') throw new Error(`bench: the agent run did not finish: ${JSON.stringify(reply).slice(0, 300)}`);
  }
  const perRound = median(perRun);
  const history = Array.from({ length: 1000 }, (_, i) => ({
    role: /** @type {'user' | 'assistant'} */ (i % 2 ? 'assistant' : 'user'),
    content: 'lorem ipsum dolor sit amet '.repeat(20),
  }));
  const runs = [];
  for (let r = 0; r < 20; r++) {
    const t0 = performance.now();
    planCompaction(history, { thresholdTokens: 12_000, keepRecent: 10 });
    runs.push(performance.now() - t0);
  }
  return { agentToolRoundTripMs: round(perRound), compactionDecision1000MessagesMs: round(median(runs)) };
}

const result = {
  ...(await agentBench()),
  ...(await browserBench()),
  ...(await sseThroughput()),
  // Stream assembly per wire format and the reliability layer's overhead (web/providers/), in Node.
  ...(await providersBench()),
  ...(await mcpBench()),
  // wsh (issue 35): an exec of `true` and stdout throughput against the real wsh-server bin on 127.0.0.1, beside the
  // same machine's bare spawn and pipe (bench/wsh.mjs).
  ...(await wshBench()),
  // Clawser as an MCP server (issue 35 §4): an outside client's tools/call through the wsh server's /mcp and a real tab in
  // Chromium that exposes its workspace, above the call's own time in the tab (bench/mcp-serve.mjs).
  ...(await mcpServeBench()),
  // The shell (web/shell/): grep -r over 1,000 files and a 10-stage pipeline over 10 MB, in the page (OPFS), in Node and in real bash.
  ...(await shellBench()),
  // Python (issue 39 §4): Pyodide in andbox's sandbox frame, its runtime cached; a print(1) cold and warm (bench/python.mjs).
  ...(await pythonBench()),
  // The storage read path (issue 36): 1,000 OPFS files read raw (the platform's floor) and by Clawser, cold and warm (bench/read-path.mjs).
  ...(await readPathBenchAlone()),
  // Memory search (web/memory/search.js) in Node; the page runs the same code and WebAssembly kernel.
  ...(await memoryBench()),
  // Storing 100k memories, and the vector file (.memory/vectors.bin), in Node.
  ...(await embeddingsBench()),
  // Agent checkpoints (web/agent/coordination/checkpoint.js) on OPFS in Chromium.
  ...(await checkpointBench()),
  // Scheduled jobs missed while Clawser was closed, found at launch (issue 38 §2; bench/catch-up.mjs).
  ...(await catchUpBench()),
  // The model on this computer (issue 34): a generated GGUF from OPFS into wllama in the page, offline,
  // single- and multi-threaded, against node-llama-cpp (native llama.cpp) on the same file (bench/local-model.mjs).
  ...(await localModelBench()),
  // InputSanitizer (web/safety/input-sanitizer.js) in Node, on the prompt-injection corpus, and how
  // it generalises: whole families held out of examples, sources and their own rules; ordinary documents
  // nobody trained on, by kind; what the rules and cues catch alone, the model alone, both (bench/injection.mjs).
  ...(await sanitizerBench()),
  ...(await injectionBench()),
  // Search across 10,000 conversations / 1M events (web/agent/conversation/conversation-search.js) in Node.
  ...(await searchBench()),
  targets: {
    searchQuery1MEventsMs: 50,
    openApp1000ConversationsMs: 300,
    coldLoadMs: 600,
    openConversation10kMs: 10,
    openConversation100kMs: 50,
    warmOfflineLoadMs: 300,
    agentToolRoundTripMs: 2,
    andboxColdStartMs: 50,
    andboxWarmEvaluateMs: 2,
    andboxHostCallRoundTripMs: 0.5,
    pythonColdStartMs: 3000,
    pythonWarmRunMs: 20,
    gitInitAdd100CommitMs: 200,
    gitStatus1000FilesMs: 100,
    opfsReadOverheadRatio: 1.3,
    opfsRead1000FilesWarmMs: 40,
    memoryRecall10kMs: 5,
    memoryRecall10kHybridMs: 5,
    memoryRecall100kMs: 30,
    memoryRecall100kHybridMs: 30,
    memoryIndex100kMs: 5000,
    memoryHeap100kMB: 200,
    memoryStore100kMs: 5000,
    checkpointSave50Ms: 20,
    checkpointRestore50Ms: 40,
    jobCatchUpFoundMs: 5000,
    sanitizer50KBMs: 100,
    reliabilityOverheadPerRequestMs: 1,
    mcpToolCallOverheadMs: 2,
    wshExecRoundTripMs: 5,
    mcpServeCallOverheadMs: 20,
    localVsNativeSpeedRatio: 3,
    localFirstToolCallTokenMs: 300,
    localStopMs: 100,
    localStopDuringPrefillMs: 100,
    localStopDuringLoadMs: 100,
    localMainThreadLongestTaskMs: 100,
  },
  // Detection rates must reach their floor; false-positive rates stay under their ceiling.
  floors: {
    sanitizerDevDetectionPct: 90,
    sanitizerHeldoutDetectionPct: 90,
    injectionHeldOutFamilyRecall: 85,
    injectionHeldOutSourceRecall: 85,
    injectionBlindSourceRecall: 85,
    wshStdoutMBps: 100,
  },
  ceilings: {
    sanitizerDevFalsePositivePct: 5,
    sanitizerHeldoutFalsePositivePct: 5,
    injectionBenignFalsePositiveRate: 3,
    injectionBenignFalsePositiveMaxKind: 3,
  },
};
// Targets are upper bounds; `missed` lists every measurement above its target.
const measured = /** @type {Record<string, number>} */ (/** @type {unknown} */ (result));
/** @type {Record<string, {measured: number, target: number}>} */
const missed = {};
for (const [key, target] of Object.entries({ ...result.targets, ...result.ceilings }))
  if (!(measured[key] <= target)) missed[key] = { measured: measured[key], target };
for (const [key, floor] of Object.entries(result.floors))
  if (!(measured[key] >= floor)) missed[key] = { measured: measured[key], target: floor };
console.log(JSON.stringify({ ...result, missed }, null, 2));
