// This tab's session: opened with its first episode, kept across reloads with the action being
// written, kept alive while the player reads or types, and said to be gone (with why, and the
// offer to replay the episode) when the server closed it.

import { $, notice, put } from "./dom.js";
import { api, keep, kept, KEPT, state } from "./state.js";
import { buildActionFields, setFormOpen } from "./form.js";
import { pick, renderStatus, sessionText } from "./inbox.js";
import { journal, noteLeaving, offerRecovery, recoverable, whyGone } from "./journal.js";

export async function openSession() {
  const answer = await fetch("/sessions", { method: "POST" });
  if (!answer.ok) {
    notice("The server has no room for another session now; close a tab or retry later.");
    return;
  }
  state.session = (await answer.json()).session_id;
  $("#session-id").textContent = state.session;
  keep(KEPT.session, state.session);
}

// The tab goes (closed, or reloaded): the server closes its session soon unless it comes back.
export function leaving() {
  if (!state.session) return;
  noteLeaving();
  fetch("/web/api/leave", { method: "POST", keepalive: true, headers: { "X-Session-Id": state.session } });
}

// The tab has no session now; the draft stays while the episode can still be recovered.
export function forgetSession(why, keepDraft = false) {
  state.session = null;
  keep(KEPT.session, null);
  if (!keepDraft) keep(KEPT.draft, null);
  $("#session-id").textContent = "none yet";
  if (why) notice(why);
}

export function saveDraft() {
  if (!state.obs) return;
  const fields = {};
  for (const input of $("#action-fields").querySelectorAll("input, select, textarea")) {
    fields[input.name] = input.type === "checkbox" ? input.checked : input.value;
  }
  keep(KEPT.draft, { task: state.obs.task_id, type: $("#action-type").value, fields, selected: state.selected });
}

export function restoreDraft() {
  const draft = kept(KEPT.draft);
  if (!draft || draft.task !== state.obs.task_id) return;
  if ([...$("#action-type").options].some((o) => o.value === draft.type)) {
    $("#action-type").value = draft.type;
    buildActionFields();
  }
  if (Number.isInteger(draft.selected)) pick(draft.selected);
  for (const [name, value] of Object.entries(draft.fields || {})) {
    const input = $(`#field-${name}`);
    if (!input) continue;
    if (input.type === "checkbox") input.checked = Boolean(value);
    else input.value = value;
  }
}

// The session went (the server's idle timeout, a restart): said in the status bar, the form
// and the notice, with why, and the episode offered back; the page stops acting as if it were
// live.
export function sessionClosed() {
  if (state.closed) return;
  state.closed = true;
  const j = journal();
  const why = whyGone({ lastUsed: state.lastUsed });
  const back = recoverable(j);
  forgetSession(`This tab's session was closed. ${why}${back ? "" : " The episode is gone: start another."}`, back);
  if (back) offerRecovery(j, why);
  setFormOpen(false);
  put($("#action-closed"), back ? "The session has closed: this form acts no more until the episode is recovered (above)."
    : "The session has closed: this form acts no more. Start another episode above.");
  $("#action-closed").hidden = false;
  if (state.obs) renderStatus($("#status-bar"), state.obs, sessionText());
}

// Reading, typing and scrolling are using the session: the page tells the server so (a light
// request that restarts its idle clock) while the player is active, and says when the session
// will close if nothing happens; a gone session is said before the player writes a reply into
// a form that can no longer act.
export function noteActivity() {
  state.activeAt = Date.now();
}

export async function checkIdle() {
  const idle = state.setup && state.setup.idle_timeout_s;
  if (!idle || !state.session || !state.obs || state.obs.done || state.closed) return;
  const quiet = Date.now() - state.lastUsed;
  const active = state.activeAt > state.lastUsed;
  if (quiet < idle * 1000 && !(active && quiet > (idle * 1000) / 3)) {
    renderStatus($("#status-bar"), state.obs, sessionText()); // the warning, as the end nears
    return;
  }
  const answer = await api("/web/api/limits"); // restarts the idle clock of a live session
  if (answer.status === 404) sessionClosed();
  else if (state.obs) renderStatus($("#status-bar"), state.obs, sessionText());
}

export async function loadLimits() {
  const answer = await api("/web/api/limits");
  state.limits = answer.ok ? answer.body : null;
}
