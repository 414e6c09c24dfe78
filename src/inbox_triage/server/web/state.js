// The page's one state object, the tab's sessionStorage (what a reload comes back to), and
// api(), the one way the page asks the server anything.

import { notice } from "./dom.js";

export const state = {
  session: null,
  setup: null,
  obs: null,
  selected: 0,
  grade: null,
  decisions: {}, // per mail, what /state says was decided
  transcript: [], // this episode's steps as played here
  runsSort: null, // {key, dir}
  bySla: false, // the inbox sorted by SLA deadline
  replay: null, // {a, b?, step, total, differs}
  runsRows: [],
  runsSelected: 0,
  limits: null, // the lengths the episode's policy sets (/web/api/limits)
  search: "", // the inbox shows only mail with these words
  closed: false, // the session went (idle timeout, restart): the episode is read-only
  lastUsed: 0, // when this tab last asked its session anything (ms)
  seen: {}, // per mail, how many of its messages the player has been shown (unread: none)
  activeAt: 0, // when the player last typed, pressed a key or scrolled here (ms)
  replacing: false, // the player said yes to replacing an episode in progress
  stepping: false, // a step is in flight: the action button is locked until it is answered
};

// The page's state, for the tests and a curious user's devtools.
window.state = state;

// The tab keeps its session, its half-written action and its journal (the episode's reset
// and every action sent, with what each earned) in sessionStorage, so that a reload goes on
// where it was; a tab that goes leaves its journal in localStorage, so that another tab can
// replay it into a new session (the environment is deterministic: the same reset and actions
// reach the same state).
export const KEPT = {
  session: "inbox-triage:session", draft: "inbox-triage:draft", journal: "inbox-triage:episode",
  setup: "inbox-triage:setup", left: "inbox-triage:left", seen: "inbox-triage:seen",
};

export function keep(key, value, store = "session") {
  try {
    const where = store === "local" ? localStorage : sessionStorage;
    if (value === null) where.removeItem(key);
    else where.setItem(key, JSON.stringify(value));
  } catch (_) { /* storage off: a reload starts afresh */ }
}

export function kept(key, store = "session") {
  try { return JSON.parse((store === "local" ? localStorage : sessionStorage).getItem(key)); } catch (_) { return null; }
}

// The routes that keep a session alive on the server (its idle clock restarts): browsing the
// runs or a replay does not, so it must not restart the page's own count either.
const TOUCHES_SESSION = ["/reset", "/step", "/state", "/grader", "/web/api/resume", "/web/api/limits"];

export async function api(path, options = {}) {
  const headers = { "Content-Type": "application/json", ...(options.headers || {}) };
  if (state.session) headers["X-Session-Id"] = state.session;
  const touches = state.session && TOUCHES_SESSION.some((route) => path.startsWith(route));
  let response;
  try {
    response = await fetch(path, { ...options, headers });
  } catch (_) { // the server is down or unreachable: say so, and answer like a refusal
    const message = "cannot be reached: is it still running? Nothing was done.";
    notice(`The server ${message}`);
    return { ok: false, status: 0, body: { error: { field: "server", message } } };
  }
  if (touches && response.status !== 404) state.lastUsed = Date.now(); // its idle clock restarted
  let body = null;
  try { body = await response.json(); } catch (_) { body = null; }
  return { ok: response.ok, status: response.status, body };
}

export function describeError(body) {
  const e = (body && body.error) || {};
  const allowed = Array.isArray(e.allowed) && e.allowed.length ? ` (allowed: ${e.allowed.join(", ")})` : "";
  return { field: e.field || "request", message: e.message || "was refused", allowed, text: humanError(e) };
}

// A refusal in people's words: the field by the name the page shows it under (never an API
// parameter such as b_key), its message without the field's name said twice or pydantic's
// phrasing, and the values allowed.
const LABELS = {
  a_run: "the first episode's run", a_key: "the first episode", b_run: "the second episode's run",
  b_key: "the second episode", run: "the run", key: "the episode", min_grade: "“Grade from”",
  max_grade: "“Grade to”", seed: "“Seed”", split: "“Split”", difficulty: "“Difficulty”", task: "“Task”",
  session_id: "this tab's session", body: "the request", address: "the address",
};
const PYDANTIC = [
  [/^Input should be /i, "must be "], [/,? unable to (interpret|parse) [^;]*/i, ""], [/a valid boolean/g, "true or false"],
  [/a valid integer/g, "a whole number"], [/a valid number/g, "a number"], [/a valid string/g, "text"],
  [/^Field required$/i, "is required"], [/^Extra inputs are not permitted$/i, "is not a field this takes"],
];

export function fieldLabel(field) {
  if (LABELS[field]) return LABELS[field];
  const knobs = (state.setup && state.setup.knobs) || [];
  return knobs.some((k) => k.name === field) ? `the knob “${field}”` : field;
}

export function humanError(e) {
  const field = (e && e.field) || "request";
  let message = String((e && e.message) || "was refused");
  if (message.startsWith(`${field} `)) message = message.slice(field.length + 1); // "seed seed must…"
  for (const [pattern, words] of PYDANTIC) message = message.replace(pattern, words);
  message = message.replace(/\b(?:[ab]_(?:run|key)|(?:min|max)_grade)\b/g, (name) => LABELS[name]);
  const allowed = Array.isArray(e && e.allowed) && e.allowed.length ? ` (allowed: ${e.allowed.join(", ")})` : "";
  return `${fieldLabel(field)} ${message}${allowed}`;
}
