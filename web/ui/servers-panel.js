/** @import { McpManager, McpServerConfig } from '../mcp/manager.js' */
import { h, clear, guard } from './dom.js';
import { emptyState, panelLayout } from './panel-layout.js';
import { confirmDialog, formDialog } from './dialogs.js';

const STATUS_WORDS = { disconnected: 'Not connected', connecting: 'Connecting…', connected: 'Connected', error: 'Failed' };

/**
 * The Servers panel: the workspace's MCP servers — add (URL and how it signs in: none, a bearer
 * token, a custom header, OAuth), connect or disconnect, sign in, remove; each server's status,
 * version, tools with their annotations, resources (attached to the next message), prompts (as
 * "/mcp__server__prompt" in the composer), log messages and last error.
 * @param {{mcp: McpManager, signIn: (server: McpServerConfig, authenticate: string | null) => Promise<void>,
 *   attach: (attachment: {label: string, text: string, untrusted: string}) => void, onError: (err: unknown) => void, onBack: () => void,
 *   machines?: string[]}} props
 *   machines: the user's machines (the Remote panel's), whose wsh relay a server's requests may go through
 *   signIn: must be called in the click's turn (it opens the sign-in window)
 */
export function ServersPanel(props) {
  const { mcp } = props;
  const guarded = guard(props.onError);
  const status = h('p', { class: 'small', role: 'status', 'aria-live': 'polite' });
  const list = h('div', { class: 'server-list' });
  /** Sections the user opened, kept open when the list is drawn again (a log message arrives, a status changes). */
  const opened = new Set();
  /**
   * A <details> that remembers being open.
   * @param {string} key
   * @param {string} cls
   * @param {...(Node | string | false | null | undefined)} children
   */
  const section = (key, cls, ...children) => {
    const d = /** @type {HTMLDetailsElement} */ (h('details', { class: cls }, ...children));
    d.open = opened.has(key);
    d.addEventListener('toggle', () => {
      if (d.open) opened.add(key);
      else opened.delete(key);
    });
    return d;
  };

  const add = () =>
    guarded(async () => {
      const r = await formDialog({
        title: 'Add an MCP server',
        description:
          'Its Streamable HTTP endpoint (often ending in /mcp). The server must allow this page (CORS), ' +
          "or its requests go through one of your machines' wsh relay.",
        fields: [
          { name: 'name', label: 'Name (tools are called mcp__{name}__…)', required: true, placeholder: 'github' },
          { name: 'url', label: 'Server URL', type: 'url', required: true, placeholder: 'https://example.com/mcp' },
          {
            name: 'auth',
            label: 'Sign-in',
            value: 'none',
            options: ['none', 'bearer', 'header', 'oauth'],
            hint:
              'none; bearer: a token sent as "Authorization: Bearer …"; header: a custom ' +
              "header; oauth: sign in with the server's authorization server",
          },
          { name: 'headerName', label: 'Header name (for "header")', placeholder: 'X-API-Key' },
          { name: 'secret', label: 'Token or header value (kept encrypted)', type: 'password' },
          {
            name: 'relay',
            label: 'Through my relay',
            value: 'direct',
            options: ['direct', ...(props.machines ?? [])],
            hint: props.machines?.length
              ? "direct; or a machine of yours whose wsh relay makes the requests (its --relay-allow lists this server's host)"
              : 'direct (add a machine in the Remote panel to go through its wsh relay)',
          },
        ],
        submitLabel: 'Add server',
      });
      if (!r) return;
      const auth = /** @type {McpServerConfig['auth']} */ (String(r.auth));
      const server = await mcp.add({
        name: String(r.name),
        url: String(r.url),
        auth,
        headerName: String(r.headerName || '') || undefined,
        secret: String(r.secret || '') || undefined,
        ...(r.relay && r.relay !== 'direct' ? { relay: String(r.relay) } : {}),
      });
      status.textContent = `Added “${server.name}”. Connecting…`;
      await mcp.connect(server.id).then(
        () => {
          status.textContent = `Connected to “${server.name}”.`;
        },
        () => {
          status.textContent = `“${server.name}” was added but did not connect: see its error below.`;
        },
      );
    });

  /** @param {McpServerConfig} s */
  const card = (s) => {
    const st = mcp.state(s.id);
    const connected = st.status === 'connected';
    const buttons = h(
      'div',
      { class: 'row' },
      connected || st.status === 'connecting'
        ? h(
            'button',
            {
              type: 'button',
              class: 'secondary small-btn',
              'aria-label': `Disconnect ${s.name}`,
              on: {
                click: () =>
                  guarded(async () => {
                    await mcp.disconnect(s.id);
                    status.textContent = `Disconnected “${s.name}”.`;
                  }),
              },
            },
            'Disconnect',
          )
        : h(
            'button',
            {
              type: 'button',
              class: 'small-btn',
              'aria-label': `Connect ${s.name}`,
              on: {
                click: () =>
                  guarded(async () => {
                    status.textContent = `Connecting to “${s.name}”…`;
                    await mcp.connect(s.id).then(
                      () => {
                        status.textContent = `Connected to “${s.name}”.`;
                      },
                      () => {
                        status.textContent = `“${s.name}” did not connect.`;
                      },
                    );
                  }),
              },
            },
            'Connect',
          ),
      st.needsSignIn && s.auth === 'oauth'
        ? h(
            'button',
            {
              type: 'button',
              class: 'small-btn',
              'aria-label': `Sign in to ${s.name}`,
              on: {
                click: () => {
                  // Called in the click's turn: the sign-in window opens now.
                  const done = props.signIn(s, st.authenticate);
                  guarded(async () => {
                    status.textContent = `Signing in to “${s.name}” in the new window…`;
                    await done;
                    status.textContent = `Signed in to “${s.name}”. Connecting…`;
                    await mcp.connect(s.id);
                    status.textContent = `Connected to “${s.name}”.`;
                  });
                },
              },
            },
            'Sign in',
          )
        : '',
      s.auth === 'bearer' || s.auth === 'header'
        ? h(
            'button',
            {
              type: 'button',
              class: 'secondary small-btn',
              'aria-label':
                `${mcp.hasSecret(s.id) ? 'Replace' : 'Enter'} the ${s.auth === 'bearer' ? 'token' : 'header value'} ` + `of ${s.name}`,
              on: {
                click: () =>
                  guarded(async () => {
                    const r = await formDialog({
                      title: `${s.auth === 'bearer' ? 'Token' : `${s.headerName ?? 'Header'} value`} for “${s.name}”`,
                      fields: [{ name: 'secret', label: 'Token or header value (kept encrypted)', type: 'password', required: true }],
                      submitLabel: 'Save',
                    });
                    if (!r) return;
                    await mcp.setSecret(s.id, String(r.secret));
                    status.textContent = `Saved the ${s.auth === 'bearer' ? 'token' : 'header value'} of “${s.name}”.`;
                  }),
              },
            },
            mcp.hasSecret(s.id) ? 'Replace token' : 'Enter token',
          )
        : '',
      h(
        'button',
        {
          type: 'button',
          class: 'secondary small-btn danger',
          'aria-label': `Remove ${s.name}`,
          on: {
            click: () =>
              guarded(async () => {
                if (
                  !(await confirmDialog({
                    title: `Remove the server “${s.name}”?`,
                    message:
                      'Its tools leave the agent, its saved token is deleted, and so are your choices for its ' +
                      'tools (“Always allow”, rules, Off): a server added later starts afresh.',
                    confirmLabel: 'Remove',
                  }))
                )
                  return;
                await mcp.remove(s.id);
                status.textContent = `Removed “${s.name}”.`;
              }),
          },
        },
        'Remove',
      ),
    );
    const annotations = (/** @type {import('../mcp/client.js').McpTool} */ t) =>
      [
        t.annotations?.readOnlyHint ? 'read-only' : 'may change things',
        t.annotations?.destructiveHint && !t.annotations?.readOnlyHint ? 'destructive: always asked' : '',
        t.annotations?.openWorldHint ? 'reaches outside' : '',
      ]
        .filter(Boolean)
        .join(', ');
    return h(
      'li',
      { class: `card server server-${st.status}`, 'data-server': s.id },
      h(
        'div',
        { class: 'row server-head' },
        h('h3', null, s.name),
        h('span', { class: `small server-status${st.status === 'error' ? ' bad' : ''}` }, STATUS_WORDS[st.status]),
        h(
          'span',
          { class: 'small muted' },
          `${s.url}${
            s.auth !== 'none'
              ? ` · ${s.auth === 'oauth' ? 'OAuth' : s.auth === 'bearer' ? 'bearer token' : `header ` + `${s.headerName}`}`
              : ''
          }${s.relay ? ` · through the relay on “${s.relay}”` : ''}`,
        ),
      ),
      st.serverInfo
        ? h(
            'p',
            { class: 'small muted' },
            `${st.serverInfo.title ?? st.serverInfo.name}${st.serverInfo.version ? ` ${st.serverInfo.version}` : ''} · ` +
              `protocol ${st.protocolVersion}`,
          )
        : '',
      st.error ? h('p', { class: 'small bad', role: 'alert' }, st.error) : '',
      buttons,
      connected
        ? section(
            `${s.id}:details`,
            'server-details',
            h(
              'summary',
              null,
              `${st.tools.length} tool${st.tools.length === 1 ? '' : 's'}, ${st.resources.length} ` +
                `resource${st.resources.length === 1 ? '' : 's'}, ${st.prompts.length} prompt${st.prompts.length === 1 ? '' : 's'} ` +
                `of ${s.name}`,
            ),
            st.tools.length
              ? h(
                  'div',
                  { class: 'table-wrap' },
                  h(
                    'table',
                    { class: 'data-table server-tools', 'aria-label': `Tools of ${s.name}` },
                    h('thead', null, h('tr', null, h('th', null, 'Tool'), h('th', null, 'What it does'), h('th', null, 'Annotations'))),
                    h(
                      'tbody',
                      null,
                      ...st.tools.map(({ tool, name: n }) =>
                        h(
                          'tr',
                          null,
                          // The server's own name of the tool when Clawser's reads differently
                          // (create-issue → mcp__github__create_issue).
                          h(
                            'td',
                            null,
                            h('code', null, n),
                            n.endsWith(`__${tool.name}`) ? '' : h('div', { class: 'small muted' }, `the server's “${tool.name}”`),
                          ),
                          h('td', null, tool.description ?? ''),
                          h('td', null, annotations(tool)),
                        ),
                      ),
                    ),
                  ),
                )
              : '',
            st.resources.length
              ? h(
                  'ul',
                  { class: 'server-resources', 'aria-label': `Resources of ${s.name}` },
                  ...st.resources.map((r) =>
                    h(
                      'li',
                      null,
                      h('span', null, `${r.title ?? r.name} `, h('code', { class: 'small muted' }, r.uri), ' '),
                      h(
                        'button',
                        {
                          type: 'button',
                          class: 'secondary small-btn',
                          'aria-label': `Attach ${r.name} to the next message`,
                          on: {
                            click: () =>
                              guarded(async () => {
                                const res = await mcp.readResource(s.id, r.uri);
                                props.attach({
                                  label: `${r.name} (${s.name})`,
                                  text: res.text,
                                  untrusted: `a resource of the MCP server “${s.name}”`,
                                });
                                status.textContent = `“${r.name}” will go with your next message (back in the chat).`;
                              }),
                          },
                        },
                        'Attach to message',
                      ),
                    ),
                  ),
                )
              : '',
            st.prompts.length
              ? h(
                  'ul',
                  { class: 'server-prompts', 'aria-label': `Prompts of ${s.name}` },
                  ...st.prompts.map((p) =>
                    h(
                      'li',
                      null,
                      h(
                        'code',
                        null,
                        `${mcp.promptCommand(s.name, p.name)}${(p.arguments ?? [])
                          .map((a) => ` ${a.required ? '' : '['}${a.name}` + `${a.required ? '' : ']'}`)
                          .join('')}`,
                      ),
                      p.description ? ` — ${p.description}` : '',
                    ),
                  ),
                )
              : '',
            st.logs.length
              ? section(
                  `${s.id}:logs`,
                  'server-logs',
                  h('summary', null, `Log messages (${st.logs.length})`),
                  h(
                    'ol',
                    { class: 'small', 'aria-label': `Log messages of ${s.name}` },
                    ...st.logs.slice(-50).map((l) => h('li', null, `${new Date(l.at).toLocaleTimeString()} ${l.level}: ${l.text}`)),
                  ),
                )
              : '',
          )
        : '',
    );
  };

  const draw = () => {
    const servers = mcp.servers();
    clear(list).append(
      servers.length
        ? h('ul', { class: 'servers' }, ...servers.map(card))
        : emptyState('No MCP servers yet. Add one to give the agent its tools; Clawser talks to it straight from this page.'),
    );
  };
  const unsubscribe = mcp.subscribe(() => draw());
  draw();

  const root = panelLayout(
    { name: 'servers', title: 'Servers', onBack: props.onBack },
    h(
      'p',
      { class: 'small muted' },
      'Model Context Protocol servers (Streamable HTTP). Their tools are offered to the agent as mcp__{server}__{tool} and ' +
        'pass the same approvals as every tool; your choices for a tool (“Always allow”, Off) belong to its server, never to ' +
        'another that takes the same name. What they return is treated as outside content.',
    ),
    h('div', { class: 'row' }, h('button', { type: 'button', on: { click: add } }, 'Add server')),
    status,
    list,
  );
  return { root, destroy: unsubscribe };
}
