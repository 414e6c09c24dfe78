// Replay and compare: recorded episodes re-simulated on the server (/web/api/replay and
// /web/api/compare), stepped through side by side with their transcripts.

import { $, el, fmt, put } from "./dom.js";
import { api, describeError, humanError, state } from "./state.js";
import { delta, newEvents, penaltyOf, renderGradeTable, rewardChart, transcriptRows, whyText } from "./grade.js";
import { renderMailList, renderReading, renderStatus } from "./inbox.js";

// A replayed episode's steps as transcript rows.
function replayRows(rep) {
  let before = rep.start_grade || { value: 0, components: {} };
  let seen = (rep.start || {}).recent_events;
  return rep.steps.map((s) => {
    const error = s.error ? humanError({ ...s.error, allowed: null }) : "";
    const events = newEvents(seen, s.observation.recent_events);
    const row = { step: s.step, action: s.action, reward: s.reward, grade: s.grade.value,
      penalty: penaltyOf(before.value, s.grade.value, s.reward), error, why: whyText(s.reward, error, events, before, s.grade) };
    before = s.grade;
    seen = s.observation.recent_events;
    return row;
  });
}

function transcriptSection(rep, other) {
  const rows = replayRows(rep);
  const table = el("table", { class: "grade-table transcript-table" },
    el("thead", {}, el("tr", {}, ...["Step", "Action", "Reward", "Penalty", "Grade after", "Why (refusal or penalty)"].map((h) => el("th", { scope: "col", text: h })))),
    el("tbody"));
  const differs = other ? (step) => JSON.stringify((rep.steps[step - 1] || {}).action) !== JSON.stringify((other.steps[step - 1] || {}).action) : null;
  transcriptRows(table.tBodies[0], rows, { onPick: showStep, differs });
  return el("section", { class: "transcript replay-transcript", "aria-label": `Transcript of ${rep.record.agent} (${rep.run})` },
    el("h3", { text: `Transcript: ${rep.record.agent} · ${rep.run}` }),
    el("div", { class: "chart" }, rewardChart(rows.map((r) => r.reward), rows.map((r) => r.grade))),
    table);
}

// An action's fields as [name, text, differs from the other's]: compare marks each field that
// differs, not only the whole step.
function actionFields(action, other) {
  const names = [...new Set([...Object.keys(action), ...Object.keys(other || {})])];
  return names.filter((k) => k in action || other).map((k) => [k, k in action ? String(action[k]) : "(not set)",
    Boolean(other) && JSON.stringify(action[k]) !== JSON.stringify(other[k])]);
}

// Nothing of the last replay stays on screen while another loads or when one cannot open.
function clearReplay() {
  state.replay = null;
  put($("#replay-banner"));
  put($("#replay-strip"));
  put($("#replay-transcripts"));
  $("#replay-total").textContent = "0";
  $("#replay-step-error").hidden = true;
  for (const id of ["#replay-step", "#replay-slider"]) { $(id).value = "0"; $(id).max = "0"; }
  replayControls(false);
}

function replayControls(on) {
  for (const control of document.querySelectorAll(".replay-controls button, .replay-controls input")) control.disabled = !on;
}

// Each opening is numbered: an answer that arrives after another replay was asked for (a slow
// re-simulation, a new address) is dropped, so only the last one asked for is drawn.
let opening = 0;

// ``wanted``: the step the address asks for (?step=N), where it names one.
export async function openReplay(parts, wanted = null) {
  const mine = ++opening;
  clearReplay();
  put($("#replay-panes"), el("p", { class: "muted", text: "Re-simulating…" }));
  let answer;
  if (parts === null) {
    answer = { ok: false, body: { error: { field: "address", message: "is not a well-formed address" } } };
  } else if (parts.length !== 2 && parts.length !== 4) {
    answer = { ok: false, body: { error: { field: "address", message: "names no episode (#/replay/RUN/KEY or #/compare/RUN/KEY/RUN/KEY)" } } };
  } else if (parts.length === 2) {
    answer = await api(`/web/api/replay?${new URLSearchParams({ run: parts[0], key: parts[1] })}`);
    if (mine !== opening) return;
    if (answer.ok) state.replay = { a: answer.body, b: null, differs: null };
  } else {
    answer = await api(`/web/api/compare?${new URLSearchParams({ a_run: parts[0], a_key: parts[1], b_run: parts[2], b_key: parts[3] })}`);
    if (mine !== opening) return;
    if (answer.ok) state.replay = { a: answer.body.a, b: answer.body.b, differs: answer.body.first_difference };
  }
  if (!answer.ok) {
    state.replay = null;
    const e = describeError(answer.body);
    put($("#replay-panes"), el("p", { class: "refused", role: "alert", text: `Cannot ${parts && parts.length === 4 ? "compare" : "replay"}: ${e.text}` }),
      el("p", {}, el("a", { href: "#/runs", text: "Back to the runs list" })));
    return;
  }
  $("#replay-title").textContent = parts.length === 2 ? "Replay" : "Compare";
  const r = state.replay;
  const bare = [r.a, r.b].find((rep) => rep && rep.problem && !rep.steps.length);
  if (bare) { // nothing was re-simulated (no trajectory kept, a sealed episode): say so, draw nothing
    state.replay = null;
    put($("#replay-panes"), el("p", { class: "refused", role: "alert" },
      `${bare.record.agent} on ${bare.record.task} (seed ${bare.record.seed}, run ${bare.run}) cannot be replayed: ${bare.problem}. `
      + `Its recorded grade is ${fmt(bare.record.grade)}; the runs list shows its numbers.`),
    el("p", {}, el("a", { href: "#/runs", text: "Back to the runs list" })));
    return;
  }
  replayControls(true);
  r.total = Math.max(r.a.steps.length, r.b ? r.b.steps.length : 0);
  r.step = r.differs ? Math.max(0, r.differs - 1) : 0;
  const badWanted = wanted !== null && stepProblem(wanted, r.total);
  if (wanted !== null && !badWanted) r.step = Number(wanted);
  for (const id of ["#replay-step", "#replay-slider"]) $(id).max = String(r.total);
  $("#replay-total").textContent = String(r.total);
  renderBanner();
  renderStrip();
  put($("#replay-transcripts"), transcriptSection(r.a, r.b), r.b ? transcriptSection(r.b, r.a) : null);
  $("#replay-transcripts").classList.toggle("two", Boolean(r.b));
  showStep(r.step);
  if (badWanted) stepRefused(wanted, r.total, "The address asks for");
}

function mismatchText(rep) {
  if (rep.problem) return `cannot be replayed: ${rep.problem}`;
  if (rep.reproduced) return `reproduces its recorded rewards and grade (${fmt(rep.record.grade)})`;
  const s = rep.steps.find((x) => x.step === rep.first_mismatch);
  if (s) return `does NOT reproduce: at step ${s.step} the record says reward ${fmt(s.recorded_reward, 4)}, the replay gives ${fmt(s.reward, 4)}`;
  return `does NOT reproduce: recorded grade ${fmt(rep.record.grade)}, replayed ${fmt(rep.final_grade)}`;
}

function renderBanner() {
  const r = state.replay;
  const lines = [r.a, r.b].filter(Boolean).map((rep) => el("p", {
    class: rep.reproduced ? "ok" : "refused",
    "data-reproduced": rep.reproduced ? "yes" : "no",
  }, `${rep.record.agent} on ${rep.record.task} (seed ${rep.record.seed}, run ${rep.run}) ${mismatchText(rep)}.`));
  if (r.b) {
    lines.push(el("p", { id: "first-difference", class: "differs" },
      r.differs ? `The two first differ at step ${r.differs}.` : "The two took the same actions throughout."));
  }
  put($("#replay-banner"), ...lines);
}

function renderStrip() {
  const r = state.replay;
  const cells = [];
  for (let i = 1; i <= r.total; i++) {
    const a = r.a.steps[i - 1];
    const bad = (a && !a.reproduced) || (r.b && r.b.steps[i - 1] && !r.b.steps[i - 1].reproduced);
    cells.push(el("span", {
      class: `cell${i === r.differs ? " differs" : ""}${bad ? " mismatch" : ""}`,
      "data-step": i, title: `step ${i}`, onclick: () => showStep(i),
    }));
  }
  put($("#replay-strip"), ...cells);
}

function paneAt(rep, step, other) {
  const last = rep.steps.length;
  const at = Math.min(step, last);
  const obs = at === 0 ? rep.start : rep.steps[at - 1].observation;
  const full = { ...rep.episode, ...obs };
  const s = at === 0 ? null : rep.steps[at - 1];
  const grade = at === 0 ? rep.start_grade : s.grade;
  const pane = el("section", { class: "pane", "aria-label": `${rep.record.agent} at step ${at}` });
  const head = el("h3", { text: `${rep.record.agent} · ${rep.run}` });
  const tbody = el("tbody");
  const items = renderMailList(tbody, full, -1, null, false);
  const actedOn = s && (s.action.email_id || s.action.ticket_id || (full.mode === "ticket" ? full.ticket_id : null));
  const differsHere = other !== undefined && state.replay.differs === step;
  const theirs = other !== undefined && at > 0 && at <= other.steps.length ? other.steps[at - 1] : null;
  const theirGrade = other === undefined ? null : (at === 0 ? other.start_grade : other.steps[Math.min(at, other.steps.length) - 1].grade);
  const acted = actedOn ? items.find((m) => m.id === actedOn) : null;
  put(pane, head,
    step > last ? el("p", { class: "muted", text: `This episode ended after step ${last}.` }) : null,
    el("dl", { class: "status-bar" }),
    el("div", { class: `action-box${differsHere ? " differs" : ""}` },
      el("h4", { text: s ? `Step ${at}: action${differsHere ? " (first difference)" : ""}` : "Before the first step" }),
      s ? el("dl", { class: "action" }, ...actionFields(s.action, theirs && theirs.action).flatMap(([k, v, differs]) => [
        el("dt", { text: k, class: differs ? "field-differs" : "" }),
        el("dd", { text: v, class: differs ? "field-differs" : "", title: differs ? "differs from the other episode's action" : null })])) : null,
      s ? el("p", {}, "Reward ", el("output", { class: "replay-reward", text: fmt(s.reward, 4) }),
        s.reproduced ? " (as recorded)" : el("strong", { class: "refused", text: ` (recorded ${fmt(s.recorded_reward, 4)})` })) : null,
      s && s.error ? el("p", { class: "refused", text: `Refused: ${humanError(s.error)}` }) : null,
      s ? el("p", { class: "muted", text: full.last_feedback }) : null),
    el("table", { class: "mail-list" }, el("thead", {}, el("tr", {}, ...["From", "Subject", "Tier", "SLA", "State"].map((h) => el("th", { scope: "col", text: h })))), tbody),
    acted ? el("details", { class: "acted-mail" }, el("summary", { text: `The mail acted on: ${acted.id}` }), el("article", { class: "reading-pane" })) : null,
    el("h4", {}, "Grade so far ", el("output", { class: "replay-grade", text: fmt(grade.value) }),
      theirGrade ? el("span", { class: "delta", text: ` (${delta(grade.value, theirGrade.value)} against the other)` }) : null),
    el("table", { class: "grade-table" }, el("thead", {}, el("tr", {}, ...["Component", "Weight", "Score", ...(theirGrade ? ["Δ other"] : []), "Explanation"].map((h) => el("th", { scope: "col", text: h })))), el("tbody")));
  renderStatus(pane.querySelector("dl"), full);
  renderGradeTable(pane.querySelector(".grade-table tbody"), grade.components, theirGrade && theirGrade.components);
  if (acted) renderReading(pane.querySelector(".acted-mail article"), acted);
  if (actedOn) {
    const row = items.findIndex((m) => m.id === actedOn);
    if (row >= 0) tbody.children[row].classList.add("acted");
  }
  return pane;
}

// A step typed or put in the address must be a whole number from 0 to the last step.
function stepProblem(text, total) {
  const n = Number(text);
  return String(text).trim() === "" || !Number.isInteger(n) || n < 0 || n > total;
}

function stepRefused(text, total, who = "Step") {
  const box = $("#replay-step-error");
  box.textContent = `${who} step "${String(text).slice(0, 20)}": a step is a whole number from 0 to ${total}.`;
  box.hidden = false;
  $("#replay-step").setAttribute("aria-invalid", "true");
}

// The step box: a step it cannot go to is said, and the replay stays where it was.
export function typedStep(text) {
  const r = state.replay;
  if (!r) return;
  if (stepProblem(text, r.total)) { stepRefused(text, r.total, "There is no"); return; }
  showStep(Number(text));
}

export function showStep(step) {
  const r = state.replay;
  if (!r || !Number.isFinite(step)) return;
  $("#replay-step-error").hidden = true;
  $("#replay-step").removeAttribute("aria-invalid");
  r.step = Math.max(0, Math.min(r.total, Math.round(step)));
  // The step is in the address (replaced, not pushed: stepping fills no history).
  const base = location.hash.split("?")[0];
  if (base.startsWith("#/replay/") || base.startsWith("#/compare/")) history.replaceState(null, "", `${base}?step=${r.step}`);
  $("#replay-step").value = String(r.step);
  $("#replay-slider").value = String(r.step);
  $("#replay-first").disabled = $("#replay-back").disabled = r.step === 0;
  $("#replay-forward").disabled = $("#replay-last").disabled = r.step === r.total;
  const panes = [paneAt(r.a, r.step, r.b ? r.b : undefined)];
  if (r.b) panes.push(paneAt(r.b, r.step, r.a));
  put($("#replay-panes"), ...panes);
  $("#replay-panes").classList.toggle("two", Boolean(r.b));
  document.querySelectorAll("#replay-strip .cell").forEach((c) => c.classList.toggle("here", Number(c.dataset.step) === r.step));
  document.querySelectorAll("#replay-transcripts tbody tr").forEach((tr) => {
    const here = Number(tr.dataset.step) === r.step;
    tr.classList.toggle("here", here);
    if (here) tr.setAttribute("aria-current", "step"); else tr.removeAttribute("aria-current");
  });
}
