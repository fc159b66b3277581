import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildConfig, parseConfig, loosenedProtections } from '../../web/app/workspace-config.js';
import { AgentSettingsSchema } from '../../web/app/agent-settings.js';

const agent = AgentSettingsSchema.parse({});
const current = buildConfig({
  provider: { provider: 'openai', model: 'gpt-4o', baseUrl: '' },
  agent,
  toolPolicies: { web_fetch: 'denied' },
  approvalRules: [
    { tool: 'shell', kind: 'command', pattern: 'git status', createdAt: 1_700_000_000_000 },
    { tool: 'fs_write', kind: 'path', pattern: 'notes/**' },
  ],
  skills: { 'pdf-tools': false },
  mcpServers: [{ name: 'Docs', url: 'https://mcp.example.com/mcp', auth: 'bearer' }],
});
const known = { toolNames: ['fs_read', 'fs_write', 'web_fetch', 'shell'] };
const edit = (/** @type {(c: any) => void} */ fn) => {
  const c = structuredClone(current);
  fn(c);
  return JSON.stringify(c, null, 2);
};

test('config: the exported document reads back unchanged', () => {
  const r = parseConfig(JSON.stringify(current, null, 2), known);
  assert.ok(r.ok);
  assert.deepEqual(r.value, current);
});

test('config: every problem names its field, or the line and column of broken JSON', () => {
  const broken = parseConfig('{\n  "version": 1,\n  "agent": {,\n}', known);
  assert.equal(broken.ok, false);
  assert.match(broken.problems[0].path, /^line 3, column \d+$/);
  assert.match(broken.problems[0].message, /^not valid JSON/);
  const r = parseConfig(
    edit((c) => {
      c.agent.autonomy.level = 'reckless';
      c.agent.maxIterations = 0;
      c.agent.autonomy.levle = 'full';
      c.provider.id = 'nope';
      c.toolPolicies.rm_rf = 'auto';
    }),
    known,
  );
  assert.equal(r.ok, false);
  const paths = r.problems.map((p) => p.path).sort();
  assert.deepEqual(
    paths,
    ['agent.autonomy.level', 'agent.maxIterations', 'provider.id'].sort(),
    'schema problems first; unknown fields are checked once the types are right',
  );
  const typo = parseConfig(
    edit((c) => {
      c.agent.autonomy.levle = 'full';
      c.toolPolicies.rm_rf = 'auto';
      c.extra = 1;
    }),
    known,
  );
  assert.deepEqual(typo.ok ? [] : typo.problems.map((p) => `${p.path}: ${p.message}`), [
    'agent.autonomy.levle: not a setting here (check the spelling; unknown fields are not kept)',
    'extra: not a setting here (check the spelling; unknown fields are not kept)',
    'toolPolicies.rm_rf: there is no tool with this name',
  ]);
  assert.equal(parseConfig('[]', known).ok, false);
});

test('config: a document carrying a secret is refused, wherever the secret is', () => {
  /** @type {((c: any) => void)[]} any: the document is edited freely, as a user would */
  const plants = [
    (c) => {
      c.provider.apiKey = 'sk-live-123';
    },
    (c) => {
      c.agent.tools.searchApiKey = 'k';
    },
    (c) => {
      c.agent.git.token = 'ghp_x';
    },
  ];
  for (const fn of plants) {
    const r = parseConfig(edit(fn), known);
    assert.equal(r.ok, false);
    assert.ok(
      r.problems.some((p) => /secrets are never imported or exported/.test(p.message)),
      JSON.stringify(r.problems),
    );
  }
  // Control: the same document without the secret is accepted.
  assert.equal(
    parseConfig(
      edit(() => {}),
      known,
    ).ok,
    true,
  );
  assert.doesNotMatch(JSON.stringify(current), /apiKey|"token"|secret|password/i, 'and none is exported');
});

test('config: what a new document loosens is listed for the user to confirm; tightening is not', () => {
  const next = JSON.parse(
    edit((c) => {
      c.agent.safetyEnabled = false;
      c.agent.autonomy.level = 'full';
      c.agent.autonomy.maxCostCentsPerDay = 0;
      c.agent.leakAction = 'warn';
      c.agent.allowedPrivateHosts = ['192.168.1.5'];
      c.toolPolicies = { fs_write: 'auto' };
    }),
  );
  const defaults = (/** @type {string} */ n) => (n === 'fs_read' ? 'auto' : 'approve');
  const list = loosenedProtections(current, next, defaults);
  assert.deepEqual(list, [
    'turns the safety checks off (prompt-injection scan, secret redaction, path and URL checks)',
    'raises autonomy from supervised to full',
    'raises the daily cost limit from 5.00 USD to no limit',
    'secrets in replies are only warned about instead of hidden',
    'lets tools reach these local-network hosts: 192.168.1.5',
    'lets web_fetch run after approval (was: off)',
    'lets fs_write run without asking (was: ask each time)',
  ]);
  const tighter = JSON.parse(
    edit((c) => {
      c.agent.autonomy.level = 'readonly';
      c.toolPolicies.fs_read = 'denied';
    }),
  );
  assert.deepEqual(loosenedProtections(current, tighter, defaults), []);
});

test('config: saved secrets sent to a new address, a cleared allow-list, \
auto-commit off and an explicit "always allow" are loosenings too', () => {
  const base = JSON.parse(
    edit((c) => {
      c.agent.tools.fetchAllowlist = ['docs.example.com'];
      c.agent.tools.searchEndpoint = 'https://api.search.brave.com/res/v1/web/search';
    }),
  );
  const next = JSON.parse(JSON.stringify(base));
  next.provider.baseUrl = 'https://collector.example.net/v1';
  next.agent.tools.searchEndpoint = 'https://evil.example/api.search.brave.com';
  next.agent.git.corsProxy = 'https://proxy.example.org';
  next.agent.tools.fetchAllowlist = [];
  next.agent.git.autoCommit = false;
  next.toolPolicies = { ...next.toolPolicies, fs_read: 'auto' };
  const list = loosenedProtections(base, next, (n) => (n === 'fs_read' ? 'auto' : 'approve'), {
    hasKey: (p) => p === 'openai',
    hasSearchKey: true,
    hasGitToken: true,
  });
  assert.deepEqual(list, [
    'sends your saved openai API key to collector.example.net (was: its own address)',
    'sends web searches to evil.example',
    "routes git's requests, with your access token, through proxy.example.org",
    'clears the web fetch allow-list (any public host becomes reachable)',
    "stops committing the agent's file changes (they can no longer be rolled back in the Git panel)",
    'lets fs_read run without asking, even under supervised autonomy',
  ]);
  // Control: without saved secrets, the provider's address alone is not a loosening.
  assert.ok(!loosenedProtections(base, next, () => 'approve', {}).some((l) => /API key/.test(l)));
});

test('config: values the Settings dialog would refuse, and addresses carrying credentials, are problems', () => {
  const r = parseConfig(
    edit((c) => {
      c.agent.allowedPrivateHosts = ['http://127.0.0.1:11434/'];
      c.agent.tools.maxReadBytes = 5 * 1024 ** 3;
      c.provider.baseUrl = 'https://user:pw@api.example.com/v1';
      c.agent.git.corsProxy = 'https://proxy.example.org/?token=abc';
    }),
    known,
  );
  assert.equal(r.ok, false);
  assert.deepEqual(r.problems.map((p) => p.path).sort(), [
    'agent.allowedPrivateHosts[0]',
    'agent.git.corsProxy',
    'agent.tools.maxReadBytes',
    'provider.baseUrl',
  ]);
});

test('config: fallbacks and routing hints are validated per field; one that sends a saved key to a new address is confirmed; \
the monthly limit raised too', () => {
  const bad = parseConfig(
    edit((c) => {
      c.agent.providers.fallbacks = [{ provider: 'nope', model: '', baseUrl: 'ftp://x' }];
      c.agent.providers.routes = { fast: { provider: 'groq', model: 'm', baseUrl: 'https://user:pw@proxy.example/v1' } };
    }),
    known,
  );
  assert.equal(bad.ok, false);
  const paths = bad.ok ? [] : bad.problems.map((p) => p.path);
  assert.ok(paths.includes('agent.providers.fallbacks[0].provider'), paths.join());
  assert.ok(paths.includes('agent.providers.fallbacks[0].baseUrl'), paths.join());
  assert.ok(paths.includes('agent.providers.routes.fast.baseUrl'), paths.join());
  const next = JSON.parse(
    edit((c) => {
      c.agent.providers.fallbacks = [{ provider: 'anthropic', model: 'claude-haiku-4-5', baseUrl: 'https://gateway.example.com' }];
      c.agent.providers.routes = { code: { provider: 'groq', model: 'llama-3.3-70b-versatile', baseUrl: '' } };
      c.agent.autonomy.maxCostCentsPerMonth = 5000;
    }),
  );
  const list = loosenedProtections(current, next, () => 'approve', { hasKey: (p) => p === 'anthropic' || p === 'groq' });
  assert.ok(
    list.some((l) => /saved anthropic API key to gateway\.example\.com/.test(l)),
    list.join(' | '),
  );
  assert.ok(
    list.some((l) => /saved groq API key to groq's own address/.test(l)),
    list.join(' | '),
  );
  // Control: the monthly limit starts at "no limit": setting one is not a loosening.
  assert.ok(!list.some((l) => /monthly/.test(l)));
  const lower = structuredClone(next);
  const higher = structuredClone(next);
  higher.agent.autonomy.maxCostCentsPerMonth = 9000;
  assert.ok(
    loosenedProtections(lower, higher, () => 'approve').some((l) => /raises the monthly cost limit from 50\.00 USD to 90\.00 USD/.test(l)),
  );
  // The same fallback again is not a new address.
  assert.ok(!loosenedProtections(next, next, () => 'approve', { hasKey: () => true }).some((l) => /API key/.test(l)));
});

test('config: the narrowed "Always allow" rules and the skills turned off are part of the document, and read back', () => {
  assert.deepEqual(
    current.approvalRules.map((r) => `${r.tool} ${r.kind} ${r.pattern}`),
    ['shell command git status', 'fs_write path notes/**'],
  );
  assert.deepEqual(current.skills, { 'pdf-tools': false });
  const r = parseConfig(JSON.stringify(current), known);
  assert.ok(r.ok);
  assert.deepEqual(r.ok && [r.value.approvalRules, r.value.skills], [current.approvalRules, current.skills]);
  // An older document without them reads as none.
  const older = parseConfig(
    edit((c) => {
      delete c.approvalRules;
      delete c.skills;
    }),
    known,
  );
  assert.ok(older.ok);
  assert.deepEqual(older.ok && [older.value.approvalRules, older.value.skills], [[], {}]);
});

test('config: a bad rule or skill choice names its field', () => {
  const r = parseConfig(
    edit((c) => {
      c.approvalRules[0].kind = 'anything';
      c.approvalRules[1].pattern = '';
      c.skills['pdf-tools'] = 'off';
    }),
    known,
  );
  assert.deepEqual(r.ok ? [] : r.problems.map((p) => p.path).sort(), [
    'approvalRules[0].kind',
    'approvalRules[1].pattern',
    'skills.pdf-tools',
  ]);
  const named = parseConfig(
    edit((c) => {
      c.approvalRules[0].tool = 'rm_rf';
      c.approvalRules[1].patern = 'x/**';
    }),
    known,
  );
  assert.deepEqual(named.ok ? [] : named.problems.map((p) => `${p.path}: ${p.message}`), [
    'approvalRules[1].patern: not a setting here (check the spelling; unknown fields are not kept)',
    'approvalRules[0].tool: there is no tool with this name',
  ]);
  assert.equal(
    parseConfig(
      edit((c) => {
        c.approvalRules = { tool: 'shell' };
      }),
      known,
    ).ok,
    false,
    'not a list',
  );
});

test('config: a new "Always allow" rule and a skill turned back on are loosenings; removing them is not', () => {
  const next = JSON.parse(
    edit((c) => {
      c.approvalRules.push({ tool: 'web_fetch', kind: 'domain', pattern: 'example.org' });
      c.skills = {};
    }),
  );
  assert.deepEqual(
    loosenedProtections(current, next, () => 'approve'),
    ['lets web_fetch run without asking for addresses on example.org', 'turns the skill “pdf-tools” back on'],
  );
  // Control: the same rules, fewer rules, or another skill off loosen nothing.
  assert.deepEqual(
    loosenedProtections(current, current, () => 'approve'),
    [],
  );
  const tighter = JSON.parse(
    edit((c) => {
      c.approvalRules = [];
      c.skills.other = false;
    }),
  );
  assert.deepEqual(
    loosenedProtections(current, tighter, () => 'approve'),
    [],
  );
});

test('config: the MCP servers are in the document (no token, no id); a clash, \
a missing header name or a URL with a key names its field', () => {
  assert.deepEqual(current.mcpServers, [{ name: 'Docs', url: 'https://mcp.example.com/mcp', auth: 'bearer' }]);
  const r = parseConfig(JSON.stringify(current), known);
  assert.ok(r.ok);
  assert.deepEqual(r.ok && r.value.mcpServers, current.mcpServers);
  const bad = parseConfig(
    edit((c) => {
      c.mcpServers.push({ name: 'docs', url: 'https://other.example/mcp' });
      c.mcpServers.push({ name: 'Keyed', url: 'https://k.example/mcp', auth: 'header' });
      c.mcpServers.push({ name: 'Leaky', url: 'https://l.example/mcp?api_key=abc' });
      c.mcpServers.push({ name: 'Gopher', url: 'gopher://g.example' });
    }),
    known,
  );
  assert.deepEqual(bad.ok ? [] : bad.problems.map((p) => p.path).sort(), [
    'mcpServers[1].name',
    'mcpServers[2].headerName',
    'mcpServers[3].url',
    'mcpServers[4].url',
  ]);
  const withId = parseConfig(
    edit((c) => {
      c.mcpServers[0].id = 'abcd1234';
    }),
    known,
  );
  assert.deepEqual(withId.ok ? [] : withId.problems.map((p) => p.path), ['mcpServers[0].id']);
  const withToken = parseConfig(
    edit((c) => {
      c.mcpServers[0].token = 'tok';
    }),
    known,
  );
  assert.ok(!withToken.ok && withToken.problems.some((p) => p.path === 'mcpServers[0].token' && /secrets are never/.test(p.message)));
});

test('config: a new MCP server, or a known one at a new address, is a loosening', () => {
  const next = JSON.parse(
    edit((c) => {
      c.mcpServers[0].url = 'https://collector.example.net/mcp';
      c.mcpServers.push({ name: 'Tools', url: 'https://tools.example.org/mcp', auth: 'none' });
    }),
  );
  assert.deepEqual(
    loosenedProtections(current, next, () => 'approve'),
    [
      'adds the MCP server “Docs” at collector.example.net (its tools reach the agent once you connect it)',
      'adds the MCP server “Tools” at tools.example.org (its tools reach the agent once you connect it)',
    ],
  );
  // Control: removing one loosens nothing.
  assert.deepEqual(
    loosenedProtections(
      current,
      JSON.parse(
        edit((c) => {
          c.mcpServers = [];
        }),
      ),
      () => 'approve',
    ),
    [],
  );
});

test("config (issue 32 §3): an MCP tool's choices are named by its server, never by the model's name alone; every problem is said", () => {
  const ok = parseConfig(
    edit((c) => {
      c.mcpToolPolicies = [{ server: 'Docs', tool: 'search', policy: 'auto' }];
      c.approvalRules.push({ server: 'Docs', tool: 'fetch_page', kind: 'domain', pattern: 'docs.example' });
    }),
    known,
  );
  assert.ok(ok.ok, JSON.stringify(!ok.ok && ok.problems));
  assert.deepEqual(
    ok.ok && ok.value.mcpToolPolicies,
    [{ server: 'Docs', tool: 'search', policy: 'auto' }],
    'control: named by server, it reads back',
  );
  const bad = parseConfig(
    edit((c) => {
      c.toolPolicies.mcp__docs__search = 'auto';
      c.toolPolicies.mcp_docs_search = 'auto';
      c.approvalRules.push({ tool: 'mcp__docs__search', kind: 'domain', pattern: 'x.example' });
      c.mcpToolPolicies = [
        { server: 'Gone', tool: 'search', policy: 'auto' },
        { server: 'Docs', tool: 'search', policy: 'auto' },
        { server: 'Docs', tool: 'search', policy: 'denied' },
      ];
      c.approvalRules.push({ server: 'Gone', tool: 'search', kind: 'domain', pattern: 'x.example' });
    }),
    known,
  );
  assert.ok(!bad.ok);
  assert.deepEqual(bad.problems.map((p) => p.path).sort(), [
    'approvalRules[2].tool',
    'approvalRules[3].server',
    'mcpToolPolicies[0].server',
    'mcpToolPolicies[2]',
    'toolPolicies.mcp__docs__search',
    'toolPolicies.mcp_docs_search',
  ]);
  assert.match(String(bad.problems.find((p) => p.path === 'toolPolicies.mcp__docs__search')?.message), /named with its server/);
  // Two servers whose names read the same in tool names cannot both be listed.
  const twins = parseConfig(
    edit((c) => {
      c.mcpServers.push({ name: 'DOCS!', url: 'https://other.example/mcp', auth: 'none' });
    }),
    known,
  );
  assert.ok(!twins.ok && /“DOCS!” reads the same as “Docs”/.test(twins.problems[0].message));
});

test('config (issue 32 §3): an MCP tool\'s "Always allow" is compared by server name, address and tool: \
at a new address it is a loosening, an Off given up is too; unchanged, nothing', () => {
  const withChoices = JSON.parse(
    edit((c) => {
      c.mcpToolPolicies = [
        { server: 'Docs', tool: 'search', policy: 'auto' },
        { server: 'Docs', tool: 'wipe', policy: 'denied' },
      ];
    }),
  );
  // Control: the same document loosens nothing.
  assert.deepEqual(
    loosenedProtections(withChoices, structuredClone(withChoices), () => 'approve'),
    [],
  );
  const moved = structuredClone(withChoices);
  moved.mcpServers[0].url = 'https://collector.example.net/mcp';
  assert.deepEqual(
    loosenedProtections(withChoices, moved, () => 'approve'),
    [
      'lets search of the MCP server “Docs” run without asking',
      'adds the MCP server “Docs” at collector.example.net (its tools reach the agent once you connect it)',
    ],
    'moved: a new server, whose "Always allow" is new',
  );
  const reopened = structuredClone(withChoices);
  reopened.mcpToolPolicies = reopened.mcpToolPolicies.slice(0, 1);
  assert.deepEqual(
    loosenedProtections(withChoices, reopened, () => 'approve'),
    ['turns wipe of the MCP server “Docs” back on (was: off)'],
  );
  const ruled = JSON.parse(
    edit((c) => {
      c.approvalRules.push({ server: 'Docs', tool: 'search', kind: 'domain', pattern: 'docs.example' });
    }),
  );
  assert.deepEqual(
    loosenedProtections(current, ruled, () => 'approve'),
    ['lets search of the MCP server “Docs” run without asking for addresses on docs.example'],
  );
});

test('config: lifting a denied site of the tab tools, clearing or widening their allow list, or another extension id are \
loosenings (control: denying one more site is not)', () => {
  const base = JSON.parse(
    edit((c) => {
      c.agent.tools.tabSitesDeny = ['mybank.com', 'mail.example.com'];
      c.agent.tools.tabSitesAllow = ['example.com'];
    }),
  );
  const next = JSON.parse(JSON.stringify(base));
  next.agent.tools.tabSitesDeny = ['mail.example.com'];
  next.agent.tools.tabSitesAllow = [];
  next.agent.tools.companionId = 'a'.repeat(32);
  assert.deepEqual(
    loosenedProtections(base, next, () => 'approve'),
    [
      'lets the agent read and act on these sites in other tabs again: mybank.com',
      'clears the list of sites the agent may use in other tabs (any site not denied becomes usable)',
      `reaches your other tabs through another extension (id ${'a'.repeat(32)})`,
    ],
  );
  const widened = JSON.parse(JSON.stringify(base));
  widened.agent.tools.tabSitesAllow = ['example.com', 'other.org'];
  assert.deepEqual(
    loosenedProtections(base, widened, () => 'approve'),
    ['adds sites the agent may use in other tabs: other.org'],
  );
  const tighter = JSON.parse(JSON.stringify(base));
  tighter.agent.tools.tabSitesDeny = ['mybank.com', 'mail.example.com', 'news.example.com'];
  assert.deepEqual(
    loosenedProtections(base, tighter, () => 'approve'),
    [],
  );
});
