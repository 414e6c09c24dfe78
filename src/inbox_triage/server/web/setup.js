// The setup form: mode, task, split, difficulty, knobs and seed, and starting an episode
// (asking first before one under way is replaced).

import { $, el, fillSelect, notice, put } from "./dom.js";
import { api, describeError, keep, kept, KEPT, state } from "./state.js";
import { refreshGrade, renderTranscript } from "./grade.js";
import { loadLimits, openSession } from "./session.js";
import { beginJournal, takeOffer } from "./journal.js";
import { showEpisode } from "./episode.js";

function tasksFor(mode) {
  return state.setup.tasks.filter((t) => t.mode === mode);
}

export function onTaskChange() {
  const task = state.setup.tasks.find((t) => t.task_id === $("#setup-task").value);
  const generated = task && task.kind === "generated";
  const pack = task && task.kind === "pack";
  document.querySelectorAll(".gen-only").forEach((n) => { n.hidden = !generated; });
  if (pack) $("#setup-knobs").hidden = false;
  const difficulty = $("#setup-difficulty").value || "medium";
  const preset = state.setup.presets[difficulty] || {};
  for (const knob of state.setup.knobs) {
    const input = $(`#knob-${knob.name}`);
    input.placeholder = String(preset[knob.name] ?? "");
    input.closest("label").hidden = pack && knob.name !== "size";
  }
}

export function onModeChange() {
  const mode = $("#setup-mode").value;
  const tasks = tasksFor(mode);
  fillSelect($("#setup-task"), tasks.map((t) => t.task_id),
    Object.fromEntries(tasks.map((t) => [t.task_id, `${t.task_id} (${t.difficulty}) – ${t.title}`])));
  onTaskChange();
}

export async function loadSetup() {
  const answer = await api("/web/api/setup");
  state.setup = answer.body;
  // A sealed server draws every episode from its own key: no seed to choose.
  $("#setup-seed").closest("label").hidden = Boolean(state.setup.sealed);
  const modes = [...new Set(state.setup.tasks.map((t) => t.mode))];
  fillSelect($("#setup-mode"), modes);
  fillSelect($("#setup-split"), state.setup.splits);
  fillSelect($("#setup-difficulty"), state.setup.difficulties);
  $("#setup-difficulty").value = "medium";
  put($("#knob-fields"), ...state.setup.knobs.map((k) => el("label", {},
    k.name, " ",
    el("input", { id: `knob-${k.name}`, name: k.name, type: "number", min: k.min, max: k.max,
      step: k.integer ? 1 : 0.05 }))));
  showSetup({ task: state.setup.default_task });
  const chosen = kept(KEPT.setup); // what this tab chose last (a reload keeps it)
  if (chosen) showSetup(chosen);
}

// The form set to a reset's fields (the episode played, or the choice kept); what this server
// does not offer is left as it was.
export function showSetup(body) {
  const task = state.setup.tasks.find((t) => t.task_id === body.task);
  if (!task) return;
  $("#setup-mode").value = task.mode;
  onModeChange();
  $("#setup-task").value = task.task_id;
  for (const name of ["split", "difficulty"]) {
    const select = $(`#setup-${name}`);
    if ([...select.options].some((o) => o.value === body[name])) select.value = body[name];
  }
  if (Number.isInteger(body.seed)) $("#setup-seed").value = String(body.seed);
  for (const knob of state.setup.knobs) $(`#knob-${knob.name}`).value = body[knob.name] ?? "";
  onTaskChange();
}

// The form's choice, kept for a reload.
export function keepSetup() {
  const body = { task: $("#setup-task").value, split: $("#setup-split").value, difficulty: $("#setup-difficulty").value };
  const seed = Number($("#setup-seed").value);
  if (Number.isInteger(seed)) body.seed = seed;
  for (const knob of state.setup.knobs) {
    const value = $(`#knob-${knob.name}`).value;
    if (value !== "") body[knob.name] = Number(value);
  }
  keep(KEPT.setup, body);
}

// Starting another episode replaces this tab's one: ask first when one is under way.
function inProgress() {
  return Boolean(state.obs && !state.obs.done && !state.closed && state.obs.step_count > 0);
}

function askToReplace() {
  const box = $("#replace-confirm");
  put($("#replace-text"), `This tab's episode (${state.obs.task_id}) is at step ${state.obs.step_count} of ${state.obs.max_steps} and not over. Starting another ends it for good.`);
  box.hidden = false;
  $("#replace-no").focus();
}

export function answerReplace(yes) {
  $("#replace-confirm").hidden = true;
  if (!yes) { $("#start-button").focus(); return; }
  state.replacing = true;
  $("#setup-form").requestSubmit(); // its handler reads the flag before it awaits anything
  state.replacing = false; // and a form that did not submit (a bad seed) leaves no yes behind
}

export async function startEpisode(event) {
  event.preventDefault();
  keepSetup();
  if (inProgress() && !state.replacing) { askToReplace(); return; }
  state.replacing = false;
  $("#replace-confirm").hidden = true;
  if (!state.session) await openSession();
  const task = state.setup.tasks.find((t) => t.task_id === $("#setup-task").value);
  const body = { task: task.task_id, observation: "full" };
  if (!state.setup.sealed) body.seed = Number($("#setup-seed").value || 0); // sealed: the server draws it
  if (task.kind === "generated") {
    body.split = $("#setup-split").value;
    body.difficulty = $("#setup-difficulty").value;
  }
  if (task.kind !== "fixed") {
    for (const knob of state.setup.knobs) {
      const input = $(`#knob-${knob.name}`);
      if (input.value !== "" && !input.closest("label").hidden) body[knob.name] = Number(input.value);
    }
  }
  let answer = await api("/reset", { method: "POST", body: JSON.stringify(body) });
  if (answer.status === 404) { // the session was closed after sitting idle: open another
    state.session = null;
    await openSession();
    answer = await api("/reset", { method: "POST", body: JSON.stringify(body) });
  }
  if (!answer.ok) {
    const e = describeError(answer.body);
    notice(`Could not start: ${e.text}`);
    return;
  }
  notice("");
  const dropped = takeOffer(); // a new episode: the one on offer is let go
  if (dropped && dropped.journal.leftAt) keep(KEPT.left, null, "local");
  state.closed = false;
  keep(KEPT.draft, null);
  state.decisions = {};
  state.seen = {};
  state.transcript = [];
  await loadLimits();
  beginJournal(body);
  showEpisode(answer.body.observation, answer.body.done);
  renderTranscript();
  await refreshGrade(false);
  $("#mail-list").focus();
}
