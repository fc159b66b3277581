/** @import uPlot from 'uplot' */
import { h, clear, formatTime, guard } from './dom.js';
import { emptyState, panelLayout } from './panel-layout.js';

/** @typedef {ReturnType<typeof import('../stores/usage-ledger.js').summarizeLedger>} UsageSummary */
/**
 * @typedef {{id: string, name: string, paused: boolean, done: boolean, nextRun: number | null, runs: {at: number, status: string,
 *   summary: string, durationMs?: number, manual?: boolean}[]}} JobView
 */
/** @typedef {{id: string, name: string, current: boolean}} WorkspaceRow */

const RANGES = [7, 30, 90, 365];
/**
 * The chart's series colours: design tokens of styles.css (`--chart-1` … `--chart-8`, told apart in
 * light and dark and with common colour blindness), read as the page has them now — the chart
 * draws on a canvas and needs the values, not `var()`.
 */
const SERIES = 8;

const numbers = new Intl.NumberFormat();
const usd = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 4 });
const usdAxis = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', maximumSignificantDigits: 2 });
/** @param {number} cents */
const money = (cents) => usd.format(cents / 100);
/** @param {number | null} n */
export function formatBytes(n) {
  if (n === null) return 'unknown';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${i ? v.toFixed(v < 10 ? 1 : 0) : v} ${units[i]}`;
}

/** Stylesheet of the chart library, added once, when the Dashboard first opens. */
function ensureChartStyles() {
  if (document.querySelector('link[data-uplot]')) return;
  document.head.append(h('link', { rel: 'stylesheet', href: new URL('../vendor/uplot.css', import.meta.url).href, 'data-uplot': '' }));
}

/**
 * The chart library, or why this browser cannot run it: it formats numbers in
 * `navigator.language` as it loads, and some Linux builds report a tag Intl refuses
 * ("en-US@posix"). The Dashboard then shows its tables, which hold the same numbers.
 * @returns {Promise<typeof uPlot | Error>}
 */
const loadCharts = () =>
  import('uplot').then(
    (m) => m.default,
    (err) => (err instanceof Error ? err : new Error(String(err))),
  );

/**
 * One line per provider and model over the days of the range (a canvas: the table next to it
 * holds the same numbers for screen readers and copying).
 * @param {typeof uPlot} UPlot @param {HTMLElement} holder @param {UsageSummary} s @param {'tokens' | 'cost'} what
 */
function drawChart(UPlot, holder, s, what) {
  const style = getComputedStyle(holder);
  const fg = style.getPropertyValue('--chart-axis').trim();
  const grid = style.getPropertyValue('--chart-grid').trim();
  const colours = Array.from({ length: SERIES }, (_, i) => style.getPropertyValue(`--chart-${i + 1}`).trim());
  const xs = s.days.map((d) => new Date(`${d}T12:00:00`).getTime() / 1000);
  const series = s.models.slice(0, SERIES).map((m, i) => ({
    label: `${m.model} (${m.provider})`,
    stroke: colours[i],
    width: 2,
    points: { show: s.days.length <= 14 },
    value: (/** @type {uPlot} */ _u, /** @type {number | null} */ v) => (v === null ? '–' : what === 'cost' ? money(v) : numbers.format(v)),
  }));
  const data = /** @type {uPlot.AlignedData} */ ([
    xs,
    ...s.models.slice(0, SERIES).map((m) => (what === 'cost' ? m.centsPerDay : m.tokensPerDay)),
  ]);
  const width = Math.max(240, holder.clientWidth || 600);
  const chart = new UPlot(
    {
      width,
      height: 220,
      series: [{ label: 'Day', value: (_u, v) => (v === null ? '–' : new Date(v * 1000).toLocaleDateString()) }, ...series],
      scales: { x: { time: true } },
      axes: [
        { stroke: fg, grid: { stroke: grid }, ticks: { stroke: grid } },
        {
          stroke: fg,
          grid: { stroke: grid },
          ticks: { stroke: grid },
          size: 64,
          values: (_u, vals) => vals.map((v) => (what === 'cost' ? usdAxis.format(v / 100) : numbers.format(v))),
        },
      ],
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
    },
    data,
    holder,
  );
  return chart;
}

/**
 * The Dashboard: tokens and estimated cost per provider and model over time, each tool's calls
 * and failures, the scheduled jobs and their recent runs, and the storage the workspaces use
 * against the browser's quota, with a request that the browser keep the data.
 * @param {{
 *   usage: (days: number) => Promise<UsageSummary>, watchUsage: (fn: () => void) => () => void,
 *   jobs: () => Promise<JobView[]>, watchJobs: (fn: () => void) => () => void,
 *   storage: () => Promise<{usage: number | null, quota: number | null, persisted: boolean | null}>,
 *   requestPersistence: () => Promise<boolean | null>,
 *   workspaces: WorkspaceRow[], measure: (workspaceId: string, signal: AbortSignal) => Promise<{bytes: number, files: number}>,
 *   onOpenSchedule: () => void, onOpenConversation?: (id: string) => void,
 *   onError: (err: unknown) => void, onBack: () => void}} props
 */
export function DashboardPanel(props) {
  ensureChartStyles();
  const charting = loadCharts();
  const noCharts = h('p', { class: 'small muted', hidden: true });
  const guarded = guard(props.onError);
  const range = h(
    'select',
    { id: 'dash-range', 'aria-label': 'Period' },
    ...RANGES.map((d) => h('option', { value: String(d), selected: d === 30 }, d === 365 ? 'Last year' : `Last ${d} days`)),
  );
  const totals = h('p', { class: 'dash-totals', role: 'status', 'aria-live': 'polite' });
  // Named from the start (the name says the period once the usage is read): an image without one fails axe meanwhile.
  const tokenChart = h('div', { class: 'dash-chart', role: 'img', 'aria-label': 'Chart of tokens per day by model (loading)' });
  const costChart = h('div', { class: 'dash-chart', role: 'img', 'aria-label': 'Chart of estimated cost per day by model (loading)' });
  // Wide tables scroll sideways on phones: focusable, so the keyboard can scroll them too.
  const modelTable = h('div', { class: 'table-wrap', tabindex: 0, role: 'group', 'aria-label': 'Model calls (scrolls sideways)' });
  const toolTable = h('div', { class: 'table-wrap', tabindex: 0, role: 'group', 'aria-label': 'Tool calls (scrolls sideways)' });
  const jobsBox = h('div');
  /** @type {uPlot[]} */
  let charts = [];
  /** @type {UsageSummary | null} */
  let shown = null;

  const drawUsage = async () => {
    const s = await props.usage(Number(range.value));
    shown = s;
    for (const c of charts) c.destroy();
    charts = [];
    clear(tokenChart);
    clear(costChart);
    noCharts.hidden = true;
    const period = range.selectedOptions[0]?.textContent?.toLowerCase() ?? '';
    if (!s.models.length) {
      totals.textContent = `No model calls in the ${period}.`;
      tokenChart.hidden = costChart.hidden = true;
    } else {
      totals.textContent =
        `${numbers.format(s.totals.tokens)} tokens in ${numbers.format(s.totals.calls)} model calls, ` +
        `about ${money(s.totals.costCents)}${
          s.totals.unpricedCalls
            ? ` (plus ${numbers.format(s.totals.unpricedCalls)} calls to models ` + `without a known price: cost unknown)`
            : ''
        }, in the ${period}.`;
      tokenChart.hidden = false;
      costChart.hidden = s.totals.costCents <= 0;
      tokenChart.setAttribute('aria-label', `Chart of tokens per day by model, ${period}: see the table below.`);
      costChart.setAttribute('aria-label', `Chart of estimated cost per day by model, ${period}: see the table below.`);
      const UPlot = await charting;
      if (UPlot instanceof Error) {
        tokenChart.hidden = costChart.hidden = true;
        noCharts.hidden = false;
        noCharts.textContent = `The charts cannot be drawn in this browser (${UPlot.message}); the tables below hold the same numbers.`;
      } else {
        charts.push(drawChart(UPlot, tokenChart, s, 'tokens'));
        if (!costChart.hidden) charts.push(drawChart(UPlot, costChart, s, 'cost'));
      }
    }
    clear(modelTable).append(
      s.models.length
        ? h(
            'table',
            { class: 'data-table' },
            h('caption', null, 'Model calls by provider and model'),
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                ...['Provider', 'Model', 'Calls', 'Input tokens', 'Output tokens', 'Estimated cost'].map((c) =>
                  h('th', { scope: 'col' }, c),
                ),
              ),
            ),
            h(
              'tbody',
              null,
              ...s.models.map((m) =>
                h(
                  'tr',
                  null,
                  h('td', null, m.provider),
                  h('td', null, m.model),
                  h('td', { class: 'num' }, numbers.format(m.calls)),
                  h('td', { class: 'num' }, numbers.format(m.inputTokens)),
                  h('td', { class: 'num' }, numbers.format(m.outputTokens)),
                  h(
                    'td',
                    { class: 'num' },
                    m.unpricedCalls === m.calls && m.calls > 0
                      ? 'cost unknown'
                      : m.unpricedCalls
                        ? `${money(m.costCents)} + unknown`
                        : m.costCents > 0
                          ? money(m.costCents)
                          : '—',
                  ),
                ),
              ),
            ),
          )
        : h(
            'p',
            { class: 'muted small' },
            "Each reply of a model is counted here: tokens in and out, and the cost estimated from the provider's list prices.",
          ),
    );
    clear(toolTable).append(
      s.tools.length
        ? h(
            'table',
            { class: 'data-table' },
            h('caption', null, 'Tool calls'),
            h(
              'thead',
              null,
              h('tr', null, ...['Tool', 'Calls', 'Failed', 'Refused', 'Average time'].map((c) => h('th', { scope: 'col' }, c))),
            ),
            h(
              'tbody',
              null,
              ...s.tools.map((t) =>
                h(
                  'tr',
                  { class: t.failures ? 'has-failures' : '' },
                  h('td', null, h('code', null, t.name)),
                  h('td', { class: 'num' }, numbers.format(t.calls)),
                  h(
                    'td',
                    { class: 'num' },
                    t.failures ? `${numbers.format(t.failures)} (${Math.round((t.failures / t.calls) * 100)}%)` : '0',
                  ),
                  h(
                    'td',
                    { class: 'num', title: 'Refused by a gate: approval denied, autonomy, safety, policy, invalid arguments' },
                    numbers.format(t.blocked),
                  ),
                  h(
                    'td',
                    { class: 'num' },
                    t.calls > t.blocked ? `${t.avgMs < 1000 ? `${Math.round(t.avgMs)} ms` : `${(t.avgMs / 1000).toFixed(1)} s`}` : '—',
                  ),
                ),
              ),
            ),
          )
        : emptyState('No tool calls in this period.'),
    );
  };

  const drawJobs = async () => {
    const jobs = await props.jobs();
    const active = jobs.filter((j) => !j.paused && !j.done);
    const runs = jobs
      .flatMap((j) => j.runs.map((r) => ({ ...r, job: j.name })))
      .sort((a, b) => b.at - a.at)
      .slice(0, 10);
    const next = active
      .map((j) => ({ j, at: j.nextRun }))
      .filter((x) => x.at !== null)
      .sort((a, b) => /** @type {number} */ (a.at) - /** @type {number} */ (b.at))[0];
    const failed = runs.filter((r) => r.status === 'error' || r.status === 'needs_approval' || r.status === 'interrupted').length;
    clear(jobsBox).append(
      jobs.length
        ? h(
            'p',
            null,
            `${active.length} active, ${jobs.filter((j) => j.paused).length} paused, ${jobs.filter((j) => j.done).length} ` +
              `done.${next ? ` Next: “${next.j.name}” ${formatTime(/** @type {number} */ (next.at))}.` : ''}${
                failed ? ` ${failed} of the ` + `last ${runs.length} runs did not finish well.` : ''
              }`,
          )
        : emptyState('No scheduled jobs in this workspace. Create one in the Schedule panel.'),
      runs.length
        ? h(
            'div',
            { class: 'table-wrap', tabindex: 0, role: 'group', 'aria-label': 'Recent runs (scrolls sideways)' },
            h(
              'table',
              { class: 'data-table' },
              h('caption', null, 'Recent runs'),
              h('thead', null, h('tr', null, ...['Job', 'When', 'Result', 'Took'].map((c) => h('th', { scope: 'col' }, c)))),
              h(
                'tbody',
                null,
                ...runs.map((r) =>
                  h(
                    'tr',
                    { class: `run-${r.status}` },
                    h('td', null, r.job),
                    h('td', null, formatTime(r.at), r.manual ? ' (run now)' : ''),
                    h(
                      'td',
                      { title: r.summary },
                      `${STATUS[r.status] ?? r.status}${
                        r.summary ? ` — ${r.summary.slice(0, 80)}` + `${r.summary.length > 80 ? '…' : ''}` : ''
                      }`,
                    ),
                    h(
                      'td',
                      { class: 'num' },
                      r.durationMs === undefined
                        ? '—'
                        : r.durationMs < 1000
                          ? `${r.durationMs} ms`
                          : `${(r.durationMs / 1000).toFixed(1)} s`,
                    ),
                  ),
                ),
              ),
            ),
          )
        : '',
      h('button', { type: 'button', class: 'secondary', on: { click: props.onOpenSchedule } }, 'Open the Schedule panel'),
    );
  };

  const abort = new AbortController();
  /** @type {Map<string, HTMLElement>} */
  const sizeCells = new Map();
  const persistLine = h('p', { role: 'status', 'aria-live': 'polite' });
  const keepButton = h('button', { type: 'button', class: 'secondary' }, 'Ask the browser to keep this data');
  const meter = h('meter', { min: 0, max: 1, value: 0, 'aria-label': 'Storage used of the quota' });
  const quotaLine = h('p');
  /** @param {boolean | null} persisted */
  const showPersisted = (persisted) => {
    persistLine.textContent =
      persisted === null
        ? 'This browser does not say whether it may clear this data under storage pressure.'
        : persisted
          ? "Protected: the browser will not clear Clawser's data to free space (only you can, in its site settings)."
          : "Not protected: under storage pressure the browser may clear Clawser's data. Ask it to keep the data, and keep backups.";
    keepButton.hidden = persisted !== false;
  };
  keepButton.addEventListener('click', () =>
    guarded(async () => {
      const answer = await props.requestPersistence();
      showPersisted(answer);
      if (answer === false)
        persistLine.textContent =
          'The browser said no for now. Chrome agrees once the app is installed, bookmarked or used often; keep backups meanwhile.';
    }),
  );
  const drawStorage = async () => {
    const st = await props.storage();
    if (st.usage !== null && st.quota) {
      meter.setAttribute('value', String(st.usage / st.quota));
      meter.hidden = false;
      quotaLine.textContent =
        `${formatBytes(st.usage)} used of ${formatBytes(st.quota)} this browser allows ` +
        `(${((st.usage / st.quota) * 100).toFixed(st.usage / st.quota < 0.01 ? 2 : 0)}%).`;
    } else {
      meter.hidden = true;
      quotaLine.textContent = 'This browser does not report how much storage is used.';
    }
    showPersisted(st.persisted);
  };
  const workspaceTable = h(
    'table',
    { class: 'data-table' },
    h('caption', null, 'Storage by workspace'),
    h('thead', null, h('tr', null, ...['Workspace', 'Size', 'Files'].map((c) => h('th', { scope: 'col' }, c)))),
    h(
      'tbody',
      null,
      ...props.workspaces.map((w) => {
        const size = h('td', { class: 'num' }, 'Measuring…');
        const files = h('td', { class: 'num' }, '');
        sizeCells.set(w.id, size);
        sizeCells.set(`${w.id}:files`, files);
        return h('tr', null, h('td', null, w.name, w.current ? ' (this one)' : ''), size, files);
      }),
    ),
  );
  const measureAll = async () => {
    // The open workspace first: it is the one the user is looking at.
    for (const w of [...props.workspaces].sort((a, b) => Number(b.current) - Number(a.current))) {
      if (abort.signal.aborted) return;
      const r = await props.measure(w.id, abort.signal).catch(() => null);
      if (abort.signal.aborted) return;
      /** @type {HTMLElement} */ (sizeCells.get(w.id)).textContent = r ? formatBytes(r.bytes) : 'unknown';
      /** @type {HTMLElement} */ (sizeCells.get(`${w.id}:files`)).textContent = r ? numbers.format(r.files) : '';
    }
  };

  // Redraws as calls happen (here or in another tab), at most twice a second.
  /** @type {ReturnType<typeof setTimeout> | null} */
  let pending = null;
  const later = () => {
    pending ??= setTimeout(() => {
      pending = null;
      guarded(drawUsage);
    }, 500);
  };
  const offUsage = props.watchUsage(later);
  const offJobs = props.watchJobs(() => guarded(drawJobs));
  range.addEventListener('change', () => guarded(drawUsage));
  // The charts take their colours from the theme's tokens: a change of theme draws them again.
  const theme = window.matchMedia('(prefers-color-scheme: dark)');
  const onTheme = () => guarded(drawUsage);
  theme.addEventListener('change', onTheme);
  const resize = new ResizeObserver(() => {
    for (const c of charts) {
      const holder = /** @type {HTMLElement} */ (c.root.parentElement);
      if (holder.clientWidth && Math.abs(holder.clientWidth - c.width) > 4) c.setSize({ width: holder.clientWidth, height: 220 });
    }
  });
  resize.observe(tokenChart);

  const root = panelLayout(
    { name: 'dashboard', title: 'Dashboard', onBack: props.onBack, actions: [range] },
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'dash-usage-h' },
      h('h3', { id: 'dash-usage-h' }, 'Tokens and cost'),
      totals,
      noCharts,
      tokenChart,
      costChart,
      modelTable,
      h(
        'p',
        { class: 'muted small' },
        "Costs are estimates from list prices; your provider's bill is the reference. " +
          'Models that run in this browser or on this computer cost nothing.',
      ),
    ),
    h('section', { class: 'card', 'aria-labelledby': 'dash-tools-h' }, h('h3', { id: 'dash-tools-h' }, 'Tools'), toolTable),
    h('section', { class: 'card', 'aria-labelledby': 'dash-jobs-h' }, h('h3', { id: 'dash-jobs-h' }, 'Scheduled jobs'), jobsBox),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'dash-storage-h' },
      h('h3', { id: 'dash-storage-h' }, 'Storage'),
      quotaLine,
      meter,
      persistLine,
      keepButton,
      h(
        'div',
        { class: 'table-wrap', tabindex: 0, role: 'group', 'aria-label': 'Storage by workspace (scrolls sideways)' },
        workspaceTable,
      ),
    ),
  );
  guarded(drawUsage);
  guarded(drawJobs);
  guarded(drawStorage);
  guarded(measureAll);
  return {
    root,
    /** The numbers on screen (tests and the command palette read them). */
    get summary() {
      return shown;
    },
    destroy: () => {
      abort.abort();
      offUsage();
      offJobs();
      theme.removeEventListener('change', onTheme);
      resize.disconnect();
      if (pending) clearTimeout(pending);
      for (const c of charts) c.destroy();
    },
  };
}

/** @type {Record<string, string>} */
const STATUS = {
  ok: 'Done',
  error: 'Failed',
  running: 'Running',
  interrupted: 'Interrupted (tab closed)',
  needs_approval: 'Waited for approval',
  skipped: 'Missed times skipped',
};
