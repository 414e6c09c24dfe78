// An episode in play: shown when started or resumed after a reload, stepped through the action
// form, and ended. Apart from the views it drives, so that none of them imports it back.

import { $, el, fmt, put } from "./dom.js";
import { api, describeError, humanError, keep, kept, KEPT, state } from "./state.js";
import { journal, saveJournal } from "./journal.js";
import { renderPolicy } from "./policy.js";
import { mailItems } from "./mail.js";
import { newEvents, penaltyOf, refreshGrade, renderTranscript, whyText } from "./grade.js";
import { actionFromForm, buildActionFields, markRefused, setFormOpen, showRefusal, tooLong } from "./form.js";
import { loadDecisions, renderEpisode, renderReading } from "./inbox.js";
import { loadLimits, restoreDraft, sessionClosed } from "./session.js";

export function showEpisode(observation, done) {
  state.obs = { ...observation, done };
  state.selected = 0;
  $("#episode").hidden = false;
  $("#play-help").hidden = true;
  put($("#step-result"), el("p", { class: "muted", text: state.obs.last_feedback }));
  $("#episode-title").textContent = `${state.obs.task_id} – ${state.obs.title}`;
  $("#episode-objective").textContent = state.obs.objective;
  renderPolicy($("#policy-text"), state.obs.policy);
  renderEpisode();
  setFormOpen(!done);
  $("#episode-over").hidden = true;
  $("#action-closed").hidden = true;
}

// The end of an episode: said where the player is, the form closed, the final grade in view.
export function endEpisode(scroll = true) {
  setFormOpen(false);
  const over = $("#episode-over");
  over.hidden = false;
  over.textContent = `The episode is over. Final grade ${fmt(state.grade && state.grade.score)}: every component below. Start another episode above.`;
  if ($("#side-grade-label")) $("#side-grade-label").textContent = "Final grade ";
  if (scroll) {
    $("#grade-panel").scrollIntoView({ block: "start" });
    $("#grade-panel").focus({ preventScroll: true });
  }
}

// A reloaded tab: its episode as it was, with the action it was writing. Says "none" (no
// session kept), "waiting" (a session with no episode yet), "resumed", or "gone".
export async function resumeEpisode() {
  const session = kept(KEPT.session);
  if (typeof session !== "string") return "none";
  state.session = session;
  $("#session-id").textContent = session;
  const answer = await api("/web/api/resume");
  if (answer.status === 404) return "gone";
  if (!answer.ok) return "waiting"; // a session with no episode yet: it is kept for the first one
  state.closed = false;
  await loadDecisions();
  await loadLimits();
  const task = answer.body.observation.task_id;
  const played = journal();
  state.transcript = played && played.session === session ? played.rows : []; // a reset rewrites it
  const seen = kept(KEPT.seen);
  state.seen = seen && seen.task === task ? seen.seen : {};
  showEpisode(answer.body.observation, answer.body.done);
  renderTranscript();
  restoreDraft();
  await refreshGrade(answer.body.done);
  if (answer.body.done) endEpisode(false);
  return "resumed";
}

// One step at a time: the button is locked from the press until the answer is shown, so a
// double click (or Enter held down) sends the action once.
export async function takeAction(event) {
  event.preventDefault();
  if (state.stepping) return;
  state.stepping = true;
  $("#act-button").disabled = true;
  try {
    await step();
  } finally {
    state.stepping = false;
    $("#act-button").disabled = Boolean(state.obs.done || state.closed);
  }
}

async function step() {
  $("#replace-confirm").hidden = true; // playing on answers "keep playing"
  const action = actionFromForm();
  const long = tooLong(action);
  if (long) { showRefusal(long); return; }
  const answer = await api("/step", { method: "POST", body: JSON.stringify({ action }) });
  const box = $("#step-result");
  if (answer.status === 404) {
    put(box, el("p", { class: "refused", role: "alert", text: "This tab's session has closed; nothing was done. Recover the episode (above) and act again, or start another." }));
    sessionClosed();
    return;
  }
  if (!answer.ok) {
    showRefusal(describeError(answer.body));
    return;
  }
  const earlier = state.obs.recent_events;
  const gradeBefore = state.grade;
  // A step's observation leaves out what only a reset sends (the policy, the action schema).
  const sent = Object.fromEntries(Object.entries(answer.body.observation).filter(([, v]) => v !== null));
  state.obs = { ...state.obs, ...sent, last_action_error: answer.body.observation.last_action_error,
    done: answer.body.done };
  const reward = answer.body.reward;
  const err = state.obs.last_action_error;
  // In the journal at once (the tab may go before the grade is asked for): this is what a
  // recovery replays.
  const row = { step: state.obs.step_count, action, reward, error: err ? humanError({ ...err, allowed: null }) : "", grade: null, penalty: null };
  state.transcript.push(row);
  saveJournal();
  put(box,
    el("p", {}, el("strong", { text: "Reward " }), el("output", { id: "last-reward", text: fmt(reward, 4) }),
      " ", el("span", { id: "last-why", class: "refused" })),
    el("p", { id: "last-feedback", text: state.obs.last_feedback }),
    err ? el("p", { class: "refused", role: "alert", text: `Refused: ${humanError(err)}` }) : null,
    err ? el("p", { class: "muted", text: "A refused action uses a step and costs the invalid-action penalty, as on every route." }) : null,
    el("p", {}, el("strong", { id: "side-grade-label", text: "Grade so far " }), el("output", { id: "side-grade" }),
      el("a", { href: "#grade-panel", class: "muted", text: " (every component below)" })),
  );
  // The reading pane opens the mail the inbox marks current (the most urgent one waiting),
  // wherever the list shows it.
  const items = mailItems(state.obs);
  const current = items.findIndex((m) => m.state === "current");
  const next = current >= 0 ? current : items.findIndex((m) => ["open", "waiting"].includes(m.state));
  if (next >= 0 && state.obs.mode === "triage" && !err) state.selected = next;
  renderEpisode();
  if (err) {
    markRefused(err.field); // the form keeps what was written, to be put right
  } else {
    buildActionFields(); // a fresh form: queue room and open ids have changed
    keep(KEPT.draft, null);
  }
  await loadDecisions();
  renderReading($("#reading-pane"), mailItems(state.obs)[state.selected]);
  const before = state.grade ? state.grade.score : 0;
  await refreshGrade(answer.body.done);
  const after = state.grade ? state.grade.score : null;
  const why = whyText(reward, row.error, newEvents(earlier, state.obs.recent_events), gradeBefore, state.grade);
  Object.assign(row, { grade: after, penalty: after === null ? null : penaltyOf(before, after, reward), why });
  if (reward < 0 && $("#last-why")) $("#last-why").textContent = `(${why})`;
  saveJournal();
  renderTranscript();
  if (answer.body.done) endEpisode();
}
