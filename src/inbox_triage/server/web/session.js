// This tab's session: opened with its first episode, kept across reloads with the action being
// written, and said to be gone when the server's idle timeout or a restart closed it.

import { $, notice, put } from "./dom.js";
import { api, keep, kept, KEPT, state } from "./state.js";
import { buildActionFields, setFormOpen } from "./form.js";
import { pick, renderStatus, sessionText } from "./inbox.js";

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
  fetch("/web/api/leave", { method: "POST", keepalive: true, headers: { "X-Session-Id": state.session } });
}

export function forgetSession(why) {
  state.session = null;
  keep(KEPT.session, null);
  keep(KEPT.draft, null);
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

// The session went (it sat idle past the server's timeout, or the server restarted): said in
// the status bar, the form and the notice, and the page stops acting as if it were live.
export function sessionClosed() {
  if (state.closed) return;
  state.closed = true;
  forgetSession("This tab's session was closed (it sat idle past the server's timeout, or the server restarted): the episode is gone. Start another.");
  setFormOpen(false);
  put($("#action-closed"), "The session has closed: this form acts no more. Start another episode above.");
  $("#action-closed").hidden = false;
  if (state.obs) renderStatus($("#status-bar"), state.obs, sessionText());
}

// Looked at once the tab has been idle as long as the server waits: a gone session is said
// before the player writes a reply into a form that can no longer act.
export async function checkIdle() {
  const idle = state.setup && state.setup.idle_timeout_s;
  if (!idle || !state.session || !state.obs || state.obs.done || state.closed) return;
  if (Date.now() - state.lastUsed < idle * 1000) return;
  const answer = await api("/web/api/limits");
  if (answer.status === 404) sessionClosed();
}

export async function loadLimits() {
  const answer = await api("/web/api/limits");
  state.limits = answer.ok ? answer.body : null;
}
