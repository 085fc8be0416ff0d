/**
 * The hub's HTML, server-rendered with hono's `html` template: every interpolated value is
 * escaped; `raw` is used only for the sanitised README and the SVG chart (whose text the chart
 * code escapes itself).
 */
import { html, raw } from "hono/html";
import type { Comparison, CriterionRates, History, LeaderboardRow } from "./leaderboard.js";
import type { Curves } from "./curves.js";
import type { EnvListing } from "./registry.js";

type Html = ReturnType<typeof html>;

const CSS = `
*{box-sizing:border-box}body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
header{background:#1d3557;color:#fff;padding:.6rem 1rem;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
header a{color:#fff;text-decoration:none}header .who{margin-left:auto;font-size:.9rem}
main{max-width:1100px;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0}h2{font-size:1.15rem;margin:1.5rem 0 .5rem;border-bottom:1px solid #ddd}
.scroll{overflow-x:auto}table{border-collapse:collapse;min-width:100%;background:#fff}
th,td{padding:.3rem .5rem;border-bottom:1px solid #e3e3e3;text-align:left;white-space:nowrap}td.num{text-align:right;font-variant-numeric:tabular-nums}
code,pre{background:#eef;padding:.1rem .3rem;border-radius:3px}code{overflow-wrap:anywhere}pre{padding:.6rem;overflow-x:auto}
.readme{background:#fff;padding:.5rem 1rem;border:1px solid #e3e3e3;overflow-x:auto}.readme img{max-width:100%}
.card{background:#fff;border:1px solid #e3e3e3;padding:.6rem 1rem;margin:.5rem 0}
.warn{background:#fff3cd;border:1px solid #e0b100;padding:.6rem 1rem}
form.inline{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center}input,select,button{font:inherit;padding:.3rem .5rem}
.muted{color:#666}svg{max-width:100%;height:auto}
`;

/** The page frame: title, header with the search box and who is signed in. */
export function layout(title: string, body: Html, options: { user?: string; nonce?: string; script?: string } = {}): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · rubricate hub</title><style>${raw(CSS)}</style></head>
<body><header><a href="/"><strong>rubricate hub</strong></a>
<form class="inline" action="/" method="get" role="search"><input name="q" placeholder="Search environments" aria-label="Search environments"></form>
<span class="who">${options.user ? html`signed in as ${options.user} · <a href="/logout">sign out</a>` : html`<a href="/login">sign in with a registry token</a>`}</span></header>
<main>${body}</main>${options.script && options.nonce ? html`<script nonce="${options.nonce}">${raw(options.script)}</script>` : ""}</body></html>`;
}

export function listPage(envs: EnvListing[], q: string): Html {
  return html`<h1>Environments</h1>
<form class="inline" action="/" method="get"><input name="q" value="${q}" aria-label="Search"><button>Search</button></form>
<p class="muted">${envs.length} environment(s)${q ? html` matching “${q}”` : ""}</p>
<div class="scroll"><table><thead><tr><th>Name</th><th>Latest</th><th>Description</th></tr></thead><tbody>
${envs.map((e) => html`<tr><td><a href="/envs/${e.name}">${e.name}</a></td><td>${e.version}</td><td>${e.description}</td></tr>`)}
</tbody></table></div>`;
}

/** Everything an environment page shows. */
export interface EnvView {
  name: string;
  description: string;
  version: string;
  versions: { version: string; date?: string }[];
  integrity?: string;
  readmeHtml: string;
  install: string;
  tasks?: number;
  criteria: string[];
  leaderboard: LeaderboardRow[];
  rates: CriterionRates;
  comparison?: Comparison;
  history: History;
  /** Training series with stepped results on this environment (links to their curves). */
  series: string[];
  /** The operator's models, when the hub can queue evals. */
  evalModels?: string[];
  signedIn: boolean;
}

const pct = (x: number | null | undefined) => (x === null || x === undefined ? "—" : `${(x * 100).toFixed(1)}%`);
const num = (x: number | null | undefined, digits = 3) => (x === null || x === undefined || !Number.isFinite(x) ? "—" : x.toFixed(digits));
const usd = (x: number) => `$${x.toFixed(x < 1 ? 4 : 2)}`;

export function envPage(v: EnvView): Html {
  const ks = [...new Set(v.leaderboard.flatMap((r) => Object.keys(r.passAtK)))].sort((a, b) => Number(a) - Number(b));
  const base = `/envs/${v.name}`;
  return html`<h1>${v.name} <span class="muted">@${v.version}</span></h1>
<p>${v.description}</p>
<div class="card"><div>Install: <code>${v.install}</code></div>
<div>Tasks: <strong data-testid="tasks">${v.tasks ?? "—"}</strong> · Criteria: ${v.criteria.length ? v.criteria.map((c, i) => html`${i ? ", " : ""}<code>${c}</code>`) : "—"}</div>
${v.integrity ? html`<div class="muted">integrity <code>${v.integrity}</code></div>` : ""}
<form class="inline" action="${base}" method="get"><label>Version <select name="version">${v.versions.map((x) => html`<option value="${x.version}"${x.version === v.version ? raw(" selected") : ""}>${x.version}${x.date ? ` (${x.date.slice(0, 10)})` : ""}</option>`)}</select></label><button>Show</button></form></div>

<h2 id="leaderboard">Leaderboard · ${v.version}</h2>
${v.leaderboard.length === 0 ? html`<p class="muted">No results for this version yet.</p>` : html`<div class="scroll"><table data-testid="leaderboard"><thead><tr><th>#</th><th>Model</th><th>Mean reward</th><th>95% interval</th>${ks.map((k) => html`<th>pass@${k}</th>`)}<th>Cost</th><th>Tasks</th><th>Date</th><th>By</th></tr></thead><tbody>
${v.leaderboard.map((r, i) => html`<tr><td>${i + 1}</td><td>${r.model}</td><td class="num">${num(r.reward?.mean)}</td><td class="num">${r.reward ? `${num(r.reward.low)} – ${num(r.reward.high)}` : "—"}</td>${ks.map((k) => html`<td class="num">${pct(r.passAtK[k])}</td>`)}<td class="num">${usd(r.costUsd)}</td><td class="num">${r.tasks}</td><td>${r.finishedAt.slice(0, 10)}</td><td>${r.byHub ? html`<span title="evaluated by this hub">✓ hub</span>` : html`<span title="pushed by a registry user">${r.submittedBy ?? "—"}</span>`}</td></tr>`)}
</tbody></table></div>`}
${v.evalModels ? evaluateForm(v) : ""}

<h2 id="criteria">Per-criterion rates</h2>
${v.rates.criteria.length === 0 ? html`<p class="muted">No criteria reported yet.</p>` : html`<div class="scroll"><table><thead><tr><th>Criterion</th>${v.rates.models.map((m) => html`<th>${m}</th>`)}</tr></thead><tbody>
${v.rates.criteria.map((c) => html`<tr><td><code>${c}</code></td>${v.rates.models.map((m) => html`<td class="num">${pct(v.rates.rates[c][m])}</td>`)}</tr>`)}
</tbody></table></div>`}

<h2 id="compare">Compare two models</h2>
${v.leaderboard.length < 2 ? html`<p class="muted">Two models with results on this version are needed.</p>` : compareSection(v, base)}

<h2 id="history">History across versions</h2>
${v.history.versions.length === 0 ? html`<p class="muted">No results yet.</p>` : html`<div class="scroll"><table><thead><tr><th>Model</th>${v.history.versions.map((x) => html`<th>${x}</th>`)}</tr></thead><tbody>
${v.history.models.map((m) => html`<tr><td>${m}</td>${v.history.versions.map((x) => html`<td class="num">${num(v.history.means[m][x])}</td>`)}</tr>`)}
</tbody></table></div>`}

${v.series.length ? html`<h2 id="curves">Training curves</h2><p>${v.series.map((x, i) => html`${i ? ", " : ""}<a href="/series/${encodeURIComponent(x)}?train=${encodeURIComponent(v.name)}">${x}</a>`)}</p>` : ""}

<h2 id="readme">README</h2>
<div class="readme">${raw(v.readmeHtml)}</div>`;
}

function compareSection(v: EnvView, base: string): Html {
  const models = v.leaderboard.map((r) => r.model);
  const c = v.comparison;
  const a = c?.a ?? models[0];
  const b = c?.b ?? models[1];
  const options = (chosen: string) => models.map((m) => html`<option value="${m}"${m === chosen ? raw(" selected") : ""}>${m}</option>`);
  return html`<form class="inline" action="${base}#compare" method="get"><input type="hidden" name="version" value="${v.version}">
<select name="a" aria-label="first model">${options(a)}</select> vs <select name="b" aria-label="second model">${options(b)}</select><button>Compare</button></form>
${c ? html`<div class="card" data-testid="comparison">${c.diff === null ? html`<p>${c.note}</p>` : html`<p><strong>${c.a}</strong> − <strong>${c.b}</strong>: ${num(c.diff)} mean reward per task (95% interval ${num(c.low)} – ${num(c.high)}, p = ${num(c.p)}, ${c.tasks.length} shared tasks): ${c.significant ? "a significant difference" : "not a significant difference"}.</p>${c.note ? html`<p class="muted">${c.note}</p>` : ""}
<div class="scroll"><table><thead><tr><th>Task</th><th>${c.a}</th><th>${c.b}</th></tr></thead><tbody>${c.tasks.map((t) => html`<tr><td>${t.task}</td><td class="num">${num(t.a)}</td><td class="num">${num(t.b)}</td></tr>`)}</tbody></table></div>`}</div>` : ""}`;
}

function evaluateForm(v: EnvView): Html {
  if (!v.signedIn) return html`<p class="muted">Sign in to evaluate this version on the hub's models.</p>`;
  return html`<form id="evaluate" class="card" data-env="${v.name}" data-version="${v.version}"><strong>Evaluate ${v.name}@${v.version}</strong>
${v.evalModels!.map((m) => html` <label><input type="checkbox" name="model" value="${m}" checked> ${m}</label>`)}
<button type="submit">Evaluate</button> <span id="eval-progress" role="status"></span></form>`;
}

/**
 * The Evaluate button's script: POST /api/evals, then poll its progress until every model is done,
 * then reload so the leaderboard shows the new rows. Same-origin fetch sends the sign-in cookie.
 */
export const EVALUATE_SCRIPT = `(() => {
  const form = document.getElementById("evaluate");
  if (!form) return;
  const status = document.getElementById("eval-progress");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const models = [...form.querySelectorAll("input[name=model]:checked")].map((i) => i.value);
    const res = await fetch("/api/evals", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ env: form.dataset.env, version: form.dataset.version, models }) });
    const body = await res.json();
    if (!res.ok) { status.textContent = body.error.message; return; }
    const poll = async () => {
      const r = await fetch("/api/evals/" + body.id);
      const p = await r.json();
      status.textContent = p.state + ": " + p.done + " / " + p.total + " rollouts" + (p.error ? " (" + p.error + ")" : "");
      if (p.state === "running" || p.state === "queued") setTimeout(poll, 1000);
      else if (p.state === "done") location.reload();
    };
    poll();
  });
})();`;

export function seriesPage(c: Curves, svg: string, envs: string[], heldOut: string[]): Html {
  return html`<h1>Training curves · ${c.series}</h1>
<form class="inline" method="get"><label>Training environment <select name="train">${envs.map((e) => html`<option value="${e}"${e === c.curves[0]?.env ? raw(" selected") : ""}>${e}</option>`)}</select></label>
${envs.map((e) => html`<label><input type="checkbox" name="heldout" value="${e}"${heldOut.includes(e) ? raw(" checked") : ""}> ${e}</label>`)}<button>Draw</button></form>
${c.overfitting ? html`<p class="warn" data-testid="overfitting">${c.overfitting}</p>` : html`<p class="muted">No overfitting signal: the training environment did not rise while a held-out one fell.</p>`}
<div class="card">${raw(svg)}</div>
<div class="scroll"><table><thead><tr><th>Environment</th><th>Role</th><th>Trend</th><th>Steps</th></tr></thead><tbody>
${c.curves.map((x) => html`<tr><td>${x.env}</td><td>${x.role}</td><td>${x.trend}</td><td>${x.points.map((p) => p.step).join(", ")}</td></tr>`)}</tbody></table></div>`;
}

export function loginPage(error?: string): Html {
  return html`<h1>Sign in</h1>
<p>Paste a token of the registry (the <code>_authToken</code> npm saved for it). The hub keeps it only in a cookie in this browser and passes it to the registry on each request; it never stores it.</p>
${error ? html`<p class="warn">${error}</p>` : ""}
<form method="post" action="/login" class="inline"><input type="password" name="token" aria-label="registry token" autocomplete="off" required><button>Sign in</button></form>`;
}

export function messagePage(title: string, message: string): Html {
  return html`<h1>${title}</h1><p>${message}</p><p><a href="/">All environments</a></p>`;
}
