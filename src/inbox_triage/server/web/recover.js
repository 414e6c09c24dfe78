// Coming back to an episode: a reload resumes the tab's session; a session the server no
// longer has is rebuilt by replaying the tab's journal into a new one (same reset, same
// actions: the same state), said plainly; a fresh tab offers back an episode a closed tab
// left unfinished.

import { $, notice } from "./dom.js";
import { api, keep, kept, KEPT, state } from "./state.js";
import { cameBack, journal, offerRecovery, recoverable, takeOffer, whyGone } from "./journal.js";
import { forgetSession, openSession } from "./session.js";
import { resumeEpisode } from "./episode.js";
import { showSetup } from "./setup.js";

export async function comeBack() {
  const j = journal();
  const outcome = await resumeEpisode();
  if (outcome === "resumed" || outcome === "waiting") { cameBack(); return; }
  if (outcome === "gone") {
    const why = whyGone(j);
    if (recoverable(j)) { await recoverEpisode(j, why); return; }
    const sealed = j && state.setup.sealed ? " A sealed server draws each episode itself, so it cannot be replayed." : "";
    forgetSession(`${why} The episode is gone.${sealed} Start another.`);
    return;
  }
  const left = kept(KEPT.left, "local"); // a fresh tab: an episode another tab left behind
  if (left && Array.isArray(left.rows) && left.reset && recoverable(left, 1)) offerRecovery(left, whyGone(left, true));
}

// The offer's buttons.
export async function acceptOffer() {
  const taken = takeOffer();
  if (taken) await recoverEpisode(taken.journal, taken.why);
}

export function declineOffer() {
  const taken = takeOffer();
  if (taken && taken.journal.leftAt) keep(KEPT.left, null, "local");
  $("#start-button").focus();
}

// Replays the journal's reset and actions into a new session and shows the episode there.
async function recoverEpisode(j, why) {
  const n = j.rows.length;
  notice(`${why} Recovering the episode: replaying its ${n} action${n === 1 ? "" : "s"} into a new session…`);
  forgetSession(null, true);
  await openSession();
  if (!state.session) return;
  let answer = await api("/reset", { method: "POST", body: JSON.stringify(j.reset) });
  if (!answer.ok) { notice(`${why} The episode could not be started again (the server refused its setup): start another.`); return; }
  let differs = 0;
  for (const row of j.rows) {
    answer = await api("/step", { method: "POST", body: JSON.stringify({ action: row.action }) });
    if (!answer.ok) { differs = differs || row.step; break; }
    const err = answer.body.observation.last_action_error;
    if (Math.abs(answer.body.reward - row.reward) > 1e-6 || Boolean(err) !== Boolean(row.error)) differs = differs || row.step;
  }
  keep(KEPT.journal, { ...j, session: state.session, leftAt: null });
  showSetup(j.reset); // the form shows the episode played
  keep(KEPT.setup, j.reset);
  if (j.leftAt) keep(KEPT.left, null, "local");
  await resumeEpisode();
  const same = differs ? `, but from step ${differs} the replay did not earn what the original did (has the server changed?)`
    : `: the same task, seed and actions gave the same state (step ${state.obs ? state.obs.step_count : n}, the same rewards)`;
  notice(`Episode recovered. ${why} ${j.leftAt ? "This browser" : "This tab"} had kept the episode's setup and its ${n} action${n === 1 ? "" : "s"}, and replayed them into a new session${same}. Play on.`, differs ? "" : "ok");
}
