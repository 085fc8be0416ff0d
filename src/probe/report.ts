/** Markdown and HTML reports of a probe (report kit in src/report/). */
import { formatNumber, formatPercent } from "../report/format.js";
import { details, escapeHtml, htmlPage, paragraph, pre, table, warning, type Column } from "../report/html.js";
import { escapeMarkdown, markdownTable, mdHeading, mdJoin } from "../report/markdown.js";
import { barChart } from "../report/svg.js";
import type { AttackSummary, Finding } from "./findings.js";
import type { ProbeResult } from "./run.js";
import { hackTally, type HackTally } from "./hacks.js";

const clip = (text: string, n = 600) => (text.length > n ? `${text.slice(0, n)}… (${text.length} chars)` : text);

interface WinRow {
  attack: string;
  criterion: string;
  source: string;
  points: number;
  rate: number;
  wins: string;
  pointsWon: number;
}

function winRows(result: ProbeResult): WinRow[] {
  return result.attacks
    .filter((a) => a.deservesZero)
    .flatMap((a) => a.criteria.filter((c) => c.wins > 0).map((c) => ({ attack: a.id, criterion: c.criterion, source: c.source, points: c.points, rate: c.rate, wins: `${c.wins}/${c.asked}`, pointsWon: c.pointsWon })))
    .sort((x, y) => y.rate - x.rate);
}

const attackColumns: Column<AttackSummary>[] = [
  { label: "attack", value: "id" },
  { label: "category", value: "category" },
  { label: "deserves 0", value: (a) => (a.deservesZero ? "yes" : "no (control)") },
  { label: "runs", value: "runs", numeric: true },
  { label: "errors", value: "errors", numeric: true },
  { label: "mean reward", value: "meanReward", numeric: true, format: (v) => formatNumber(v as number | null) },
  { label: "max reward", value: "maxReward", numeric: true, format: (v) => formatNumber(v as number | null) },
  { label: "pass rate", value: "passRate", numeric: true, format: (v) => formatPercent(v as number | null) },
  { label: "criteria won", value: (a) => a.criteria.filter((c) => c.wins > 0).map((c) => c.criterion).join(", ") || "—" },
  { label: "isolation", value: (a) => (a.isolationHolds === null ? "n/a" : a.isolationHolds ? "holds" : "BROKEN") },
];

const hackColumns: Column<HackTally>[] = [
  { label: "criterion", value: "criterion" },
  { label: "kind", value: "kind" },
  { label: "hack", value: "hack" },
  { label: "what it tries", value: "description" },
  { label: "passed", value: (h) => `${h.passed}/${h.runs}` },
  { label: "errors", value: "errors", numeric: true },
  { label: "outcome", value: (h) => (h.passed > 0 ? "PASSES" : "held") },
];

const HACKS_INTRO = "Each check kind's known hacks (responses that deserve to fail: tags nested to look complete, prose final answers, a tool's result quoted beside another answer, …) run against the rubric's code checks; a hack that passes is a way to collect the points without doing the work.";

const winColumns: Column<WinRow>[] = [
  { label: "attack", value: "attack" },
  { label: "criterion", value: "criterion" },
  { label: "source", value: "source" },
  { label: "points", value: "points", numeric: true },
  { label: "success rate", value: "rate", numeric: true, format: (v) => formatPercent(v as number) },
  { label: "wins", value: "wins", numeric: true },
  { label: "points won / run", value: "pointsWon", numeric: true, format: (v) => formatNumber(v as number, 2) },
];

function headline(result: ProbeResult): string {
  const zero = result.attacks.filter((a) => a.deservesZero).length;
  return `${result.samples} sample(s), ${result.attacks.length} attack(s) (${zero} deserving zero), ${result.runs.length} scored responses. Worst mean reward of an attack that deserves zero: ${formatNumber(result.worstReward)}. ${result.flagged.length ? `Flagged (mean reward above ${result.threshold}): ${result.flagged.join(", ")}.` : `No attack's mean reward is above ${result.threshold}.`}`;
}

function splitFix(fix: string): { prose: string; yaml?: string } {
  const i = fix.indexOf("\n");
  if (i < 0) return { prose: fix };
  return { prose: fix.slice(0, i).replace(/:$/, "."), yaml: fix.slice(i + 1).replace(/^ {2}/gm, "") };
}

function fence(text: string, lang = ""): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const f = "`".repeat(longest + 1);
  return `${f}${lang}\n${text}\n${f}`;
}

/** Findings that share a fix, most severe group first (the fix is shown once). */
function groupByFix(findings: Finding[]): { fix: string; severity: Finding["severity"]; findings: Finding[] }[] {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) groups.set(f.fix, [...(groups.get(f.fix) ?? []), f]);
  return [...groups].map(([fix, fs]) => ({ fix, severity: fs[0].severity, findings: fs }));
}

function mdFindings(findings: Finding[]): string {
  return groupByFix(findings)
    .map((g, i) => {
      const { prose, yaml } = splitFix(g.fix);
      const items = g.findings.map((f) => `- **${f.severity}** — ${escapeMarkdown(f.message)}`).join("\n");
      // Fix texts are ours or the attack file author's: kept as markdown so inline code renders.
      return mdJoin([`${i + 1}. Fix: ${prose}`, yaml ? fence(yaml, "yaml") : undefined, items]).trimEnd();
    })
    .join("\n\n");
}

function mdExample(a: AttackSummary): string | undefined {
  const ex = a.example;
  if (!ex) return undefined;
  const reasons = ex.reasons.map((r) => `- ${escapeMarkdown(r.criterion)}: ${r.status}${r.reasoning ? ` — ${escapeMarkdown(clip(r.reasoning, 300))}` : ""}`).join("\n");
  return mdJoin([mdHeading(`${a.id} (sample ${ex.sampleId ?? ex.sampleIndex}, reward ${formatNumber(ex.reward)})`, 3), ex.strategy ? `Strategy: ${escapeMarkdown(ex.strategy)}` : undefined, fence(clip(ex.response)), reasons]).trimEnd();
}

/**
 * The probe as markdown: headline, attacks, per-criterion success rates, findings with fixes, examples.
 * @example writeFileSync("probe.md", probeMarkdown(await probe(rubric, samples, { judge })))
 */
export function probeMarkdown(result: ProbeResult): string {
  const wins = winRows(result);
  const winning = result.attacks.filter((a) => a.deservesZero && a.criteria.some((c) => c.wins > 0));
  return mdJoin([
    mdHeading(`Probe: ${result.rubric.id} (version ${result.rubric.version})`, 1),
    escapeMarkdown(headline(result)),
    mdHeading("Attacks"),
    markdownTable(result.attacks, attackColumns),
    mdHeading("Criteria won by attacks that deserve zero"),
    wins.length ? markdownTable(wins, winColumns) : "No attack that deserves zero won any positive criterion.",
    mdHeading("Findings and suggested fixes"),
    result.findings.length ? mdFindings(result.findings) : "None.",
    mdHeading("Check hacks"),
    result.hacks.length ? mdJoin([HACKS_INTRO, markdownTable(hackTally(result.hacks), hackColumns)]) : "No check criterion has a kind with known hacks.",
    winning.length ? mdHeading("Examples (the run that earned the most, with the judge's reasons)") : undefined,
    ...winning.map(mdExample),
    result.skipped.length ? `Skipped for lack of a variable: ${result.skipped.map((s) => `${s.attack} (${s.samples} sample(s))`).join(", ")}.` : undefined,
    result.attackerErrors.length ? `Attacker errors: ${result.attackerErrors.map((e) => `sample ${e.sampleIndex}: ${e.code}`).join(", ")}.` : undefined,
  ]);
}

/**
 * The probe as one self-contained HTML page.
 * @example writeFileSync("probe.html", probeHtml(result))
 */
export function probeHtml(result: ProbeResult): string {
  const wins = winRows(result);
  const bars = result.attacks.map((a) => ({ label: a.id, value: a.meanReward, color: a.deservesZero ? (result.flagged.includes(a.id) ? "#D55E00" : "#0072B2") : "#999999" }));
  const findings = groupByFix(result.findings).map((g) => {
    const { prose, yaml } = splitFix(g.fix);
    const items = g.findings.map((f) => `<li><strong>${escapeHtml(f.severity)}</strong> — ${escapeHtml(f.message)}</li>`).join("");
    return `<li>Fix: ${escapeHtml(prose)}${yaml ? pre(yaml) : ""}<ul>${items}</ul></li>`;
  });
  const examples = result.attacks
    .filter((a) => a.example && (a.criteria.some((c) => c.wins > 0) || !a.deservesZero))
    .map((a) => {
      const ex = a.example!;
      const reasons = table(ex.reasons, [
        { label: "criterion", value: "criterion" },
        { label: "status", value: "status" },
        { label: "judge's reason", value: (r) => r.reasoning ?? "" },
      ]);
      return details(`${a.id} — sample ${ex.sampleId ?? ex.sampleIndex}, reward ${formatNumber(ex.reward)}`, `${ex.strategy ? paragraph(`Strategy: ${ex.strategy}`) : ""}${pre(clip(ex.response, 2000))}${reasons}`);
    });
  return htmlPage({
    title: `Probe: ${result.rubric.id}`,
    subtitle: headline(result),
    sections: [
      { title: "Mean reward per attack", html: `${barChart(bars, { title: "Mean reward per attack (grey: controls)", yMin: 0, yMax: 1, yLabel: "reward" })}${table(result.attacks, attackColumns)}` },
      { title: "Criteria won by attacks that deserve zero", html: wins.length ? table(wins, winColumns) : paragraph("No attack that deserves zero won any positive criterion.") },
      { title: "Findings and suggested fixes", html: result.findings.length ? `<ol>${findings.join("")}</ol>` : paragraph("None.") },
      { title: "Check hacks", html: result.hacks.length ? `${paragraph(HACKS_INTRO)}${table(hackTally(result.hacks), hackColumns)}` : paragraph("No check criterion has a kind with known hacks.") },
      { title: "Examples", html: examples.length ? examples.join("") : paragraph("No attack won anything.") },
      ...(result.attackerErrors.length ? [{ title: "Attacker errors", html: warning(result.attackerErrors.map((e) => `sample ${e.sampleIndex}: ${e.code}: ${e.message}`).join("; ")) }] : []),
    ],
  });
}
