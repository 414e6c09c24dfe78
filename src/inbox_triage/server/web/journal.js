// The tab's journal of its episode: the reset it started with (task, seed, split, knobs) and
// every action sent, with what each earned. Kept in sessionStorage as the episode goes, and in
// localStorage when the tab goes; from it a gone session is said truthfully (closed tab, idle
// timeout, or a server that no longer has it) and offered back by replaying it.

import { $, put, secondsText } from "./dom.js";
import { keep, kept, KEPT, state } from "./state.js";

export function journal() {
  const j = kept(KEPT.journal);
  return j && j.reset && Array.isArray(j.rows) ? j : null;
}

export function beginJournal(reset) {
  keep(KEPT.journal, { session: state.session, task: reset.task, reset, rows: [], done: false, lastUsed: Date.now() });
}

// The rows played here (state.transcript), written after each step's answer.
export function saveJournal(changes = {}) {
  const j = journal();
  if (!j) return;
  keep(KEPT.journal, { ...j, session: state.session, rows: state.transcript, lastUsed: state.lastUsed,
    done: Boolean(state.obs && state.obs.done), ...changes });
}

// Can be replayed: not on a sealed server, which draws every episode itself.
export function recoverable(j, steps = 0) {
  return Boolean(j && !state.setup.sealed && j.rows.length >= steps);
}

// The tab goes (closed, reloaded, navigated away): its journal stays in this tab for a reload,
// and in localStorage for another tab to offer back, unless the episode was over.
export function noteLeaving() {
  const j = journal();
  if (!j || !state.session) return;
  const left = { ...j, session: state.session, rows: state.transcript, lastUsed: state.lastUsed, leftAt: Date.now() };
  keep(KEPT.journal, left);
  if (!left.done && left.rows.length) keep(KEPT.left, left, "local");
}

// The tab came back to its session (a reload): nothing is left behind.
export function cameBack() {
  saveJournal({ leftAt: null });
  const left = kept(KEPT.left, "local");
  if (left && left.session === state.session) keep(KEPT.left, null, "local");
}

const clock = (ms) => new Date(ms).toLocaleTimeString();

// Why a session is gone, from what the tab knows: when it went away, when it last used the
// session, and the server's idle timeout and grace for a closed tab.
// ``closed``: the journal another tab left behind when it was closed.
export function whyGone(j, closed = false) {
  const now = Date.now();
  const idle = state.setup.idle_timeout_s, grace = state.setup.leave_grace_s || 5;
  if (j && j.leftAt && (closed || now - j.leftAt > grace * 1000)) {
    return `The tab playing this episode was closed or left at ${clock(j.leftAt)}, and the server ends a closed tab's session ${secondsText(grace)} after it goes.`;
  }
  if (j && idle && j.lastUsed && now - j.lastUsed > idle * 1000) {
    return `This tab used its session last at ${clock(j.lastUsed)}: it sat unused for ${secondsText((now - j.lastUsed) / 1000)}, past the server's idle timeout of ${secondsText(idle)}, and the server closed it.`;
  }
  return "The server no longer has this tab's session: it restarted, or the session was closed from elsewhere.";
}

// The offer to replay an episode into a new session (main.js wires its buttons).
let offered = null;

export function offerRecovery(j, why) {
  offered = { journal: j, why };
  const n = j.rows.length;
  const seed = j.reset.seed === undefined ? "" : `, seed ${j.reset.seed}`;
  put($("#recover-text"), `${why} ${j.leftAt ? "This browser" : "This tab"} kept the episode (${j.task}${seed}) and its ${n} action${n === 1 ? "" : "s"}: `
    + "Recover replays them into a new session, which reaches the same state.");
  $("#recover-offer").hidden = false;
}

// What was offered, once (the offer is taken down).
export function takeOffer() {
  const taken = offered;
  offered = null;
  $("#recover-offer").hidden = true;
  return taken;
}
