// The transcript and the grade: step rows, the reward chart and the grade table, shared by
// play and replay; refreshGrade() asks the server for this tab's grade.

import { $, el, fmt, put } from "./dom.js";
import { api, state } from "./state.js";

// Every step of the episode: its action, reward, penalty and error, and the grade after it,
// with a chart of the step rewards and the grade (inline SVG: nothing fetched). Play keeps it
// as it goes; replay and compare make it from the re-simulated steps.

// A step's penalty: what its reward fell short of the grade's rise (reward = rise - penalty).
export function penaltyOf(before, after, reward) {
  const p = after - before - reward;
  return Math.abs(p) < 5e-5 ? 0 : p;
}

// Why a step's reward was below zero, in words: the refusal, the penalised events it caused
// (a repeat, a breached SLA…), and the grade components that fell; else the step's own cost.
const PENALISED = new Set(["invalid_action", "noop", "repeat", "revision", "premature_close", "unsafe_closure",
  "policy_violation", "sla_breached", "reopened"]);

// The events an observation adds to the one before (recent_events is a sliding window).
export function newEvents(before, after) {
  const left = new Map();
  for (const e of before || []) left.set(JSON.stringify(e), (left.get(JSON.stringify(e)) || 0) + 1);
  return (after || []).filter((e) => {
    const key = JSON.stringify(e), n = left.get(key) || 0;
    if (n) left.set(key, n - 1);
    return !n;
  });
}

export function whyText(reward, error, events, before, after) {
  if (!(reward < 0)) return error || "";
  const parts = error ? [`refused: ${error}`] : [];
  for (const e of events) {
    if (PENALISED.has(e.kind) && e.kind !== "invalid_action") parts.push(`${e.kind.replace(/_/g, " ")}${e.ticket_id ? ` on ${e.ticket_id}` : ""}${e.detail ? `: ${e.detail}` : ""}`);
  }
  const was = (name) => (before.components[name] ? before.components[name].score : 0); // one new since: from 0
  const fell = before && before.components ? Object.entries((after && after.components) || {})
    .filter(([name, c]) => c.score < was(name) - 5e-4).map(([name, c]) => `${name} fell from ${fmt(was(name), 2)} to ${fmt(c.score, 2)}`) : [];
  if (fell.length) parts.push(`the grade's ${fell.join(", ")}`);
  if (!parts.length) parts.push("the cost of a step in this mode");
  return parts.join("; ");
}

const actionText = (action) => Object.entries(action).map(([k, v]) => `${k}=${String(v).slice(0, 60)}`).join(" · ");

export function transcriptRows(tbody, rows, { onPick = null, differs = null } = {}) {
  put(tbody, ...rows.map((r) => el("tr", {
    "data-step": r.step, class: differs && differs(r.step) ? "differs" : "",
    onclick: onPick ? () => onPick(r.step) : null,
  },
  el("td", {}, onPick ? el("button", { type: "button", class: "link", text: String(r.step), "aria-label": `Go to step ${r.step}` }) : String(r.step)),
  el("td", { class: "action-cell", text: actionText(r.action) }),
  el("td", { class: r.reward < 0 ? "num refused" : "num", text: fmt(r.reward, 4) }),
  el("td", { class: r.penalty > 0 ? "num refused" : "num", text: r.penalty === null || r.penalty === undefined ? "–" : fmt(r.penalty, 4) }),
  el("td", { class: "num", text: fmt(r.grade) }),
  el("td", { class: "refused why", text: r.why || r.error }))));
}

export function renderTranscript() {
  const rows = state.transcript;
  $("#transcript").hidden = !rows.length;
  transcriptRows($("#transcript-table tbody"), rows);
  put($("#transcript-chart"), rewardChart(rows.map((r) => r.reward), rows.map((r) => r.grade)));
}

// Scaled to what the episode reached (a grade of 0.2 fills the height, not a fifth of it),
// with the top value written on the axis.
export function rewardChart(rewards, grades) {
  const w = 600, h = 140, pad = 24, n = Math.max(rewards.length, 1);
  const seen = [...rewards, ...grades.filter((g) => g !== null)];
  const low = Math.min(0, ...seen), high = Math.max(0.01, ...seen);
  const x = (i) => pad + (i + 0.5) * ((w - 2 * pad) / n);
  const y = (v) => h - pad - ((v - low) / (high - low || 1)) * (h - 2 * pad);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `Step rewards (bars) and the grade after each step (line), ${rewards.length} steps`);
  const add = (tag, attrs) => { const node = document.createElementNS(ns, tag); for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v); svg.append(node); return node; };
  add("line", { x1: pad, x2: w - pad, y1: y(0), y2: y(0), class: "axis" });
  add("line", { x1: pad, x2: pad, y1: y(low), y2: y(high), class: "axis" });
  add("text", { x: pad + 4, y: y(high) + 4, class: "tick" }).textContent = high.toFixed(3);
  add("text", { x: pad + 4, y: y(0) + 12, class: "tick" }).textContent = "0";
  add("text", { x: w - pad, y: 14, class: "legend", "text-anchor": "end" }).textContent = "bars: step reward · line: grade after the step";
  rewards.forEach((r, i) => add("rect", { x: x(i) - 4, width: 8, y: Math.min(y(0), y(r)), height: Math.abs(y(r) - y(0)) || 1, class: r < 0 ? "bar bad" : "bar" }));
  const points = grades.map((g, i) => (g === null ? null : `${x(i)},${y(g)}`)).filter(Boolean).join(" ");
  if (points) add("polyline", { points, class: "grade-line" });
  return svg;
}

export function renderGradeTable(tbody, components, others = null) {
  put(tbody, ...Object.entries(components || {}).map(([name, c]) => el("tr", { "data-component": name },
    el("th", { scope: "row", text: name }), el("td", { text: fmt(c.weight, 2) }),
    el("td", { class: "score", text: fmt(c.score) }),
    others ? el("td", { class: "delta", text: others[name] ? delta(c.score, others[name].score) : "–" }) : null,
    el("td", { text: c.explanation }))));
}

// The difference of a score from the other episode's, signed ("+0.250", "−0.100", "=").
export function delta(mine, theirs) {
  const d = mine - theirs;
  if (Math.abs(d) < 0.0005) return "=";
  return `${d > 0 ? "+" : "−"}${Math.abs(d).toFixed(3)}`;
}

export async function refreshGrade(final) {
  const answer = await api("/grader");
  if (answer.status === 409 && state.obs && !state.obs.done) { // reward_mode final: at the end
    $("#grade-value").textContent = "—";
    $("#grade-note").textContent = "This episode's rewards and grade are withheld until it ends.";
    return;
  }
  if (!answer.ok) return;
  state.grade = answer.body;
  $("#grade-value").textContent = fmt(answer.body.score);
  if ($("#side-grade")) $("#side-grade").textContent = fmt(answer.body.score);
  $("#grade-note").textContent = final || answer.body.done
    ? `Final grade. Step rewards summed to ${fmt(answer.body.total_reward)}; penalties ${fmt(answer.body.penalties)} (the rewards add up to the grade less the penalties).`
    : "The grade so far: each component's score times its weight, summed.";
  renderGradeTable($("#grade-table tbody"), answer.body.components);
  $("#grade-panel").classList.toggle("final", Boolean(final || answer.body.done));
}
