// The inbox-triage console: plain JavaScript, no build step, nothing fetched from elsewhere.
// Play goes through the server's HTTP session routes with one session per tab; replays come
// from /web/api/replay, which re-simulates recorded actions on the server.
"use strict";

const $ = (sel) => document.querySelector(sel);
const state = {
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
  replacing: false, // the player said yes to replacing an episode in progress
};

// ------------------------------------------------------------------ small helpers
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// Replaces a node's children, skipping the null and false that conditional parts give.
function put(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

function notice(text) {
  const box = $("#notice");
  box.textContent = text || "";
  box.hidden = !text;
}

async function api(path, options = {}) {
  const headers = { "Content-Type": "application/json", ...(options.headers || {}) };
  if (state.session) headers["X-Session-Id"] = state.session;
  if (state.session) state.lastUsed = Date.now();
  let response;
  try {
    response = await fetch(path, { ...options, headers });
  } catch (_) { // the server is down or unreachable: say so, and answer like a refusal
    const message = "cannot be reached: is it still running? Nothing was done.";
    notice(`The server ${message}`);
    return { ok: false, status: 0, body: { error: { field: "server", message } } };
  }
  let body = null;
  try { body = await response.json(); } catch (_) { body = null; }
  return { ok: response.ok, status: response.status, body };
}

function describeError(body) {
  const e = (body && body.error) || {};
  const allowed = Array.isArray(e.allowed) && e.allowed.length ? ` (allowed: ${e.allowed.join(", ")})` : "";
  return { field: e.field || "request", message: e.message || "was refused", allowed };
}

const fmt = (x, digits = 3) => (typeof x === "number" ? x.toFixed(digits) : "–");

function slaText(deadline, now) {
  if (deadline === null || deadline === undefined) return "–";
  const left = deadline - now;
  return left >= 0 ? `${left} min` : `${-left} min over`;
}

// ------------------------------------------------------------------ sessions
// The tab keeps its session and its half-written action in sessionStorage, so that a reload
// (or coming back to the tab) goes on where it was; the server's idle timeout ends sessions
// nobody comes back to.
const KEPT = { session: "inbox-triage:session", draft: "inbox-triage:draft", transcript: "inbox-triage:transcript" };

function keep(key, value) {
  try {
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, JSON.stringify(value));
  } catch (_) { /* storage off: a reload starts afresh */ }
}

function kept(key) {
  try { return JSON.parse(sessionStorage.getItem(key)); } catch (_) { return null; }
}

async function openSession() {
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
function leaving() {
  if (!state.session) return;
  fetch("/web/api/leave", { method: "POST", keepalive: true, headers: { "X-Session-Id": state.session } });
}

function forgetSession(why) {
  state.session = null;
  keep(KEPT.session, null);
  keep(KEPT.draft, null);
  $("#session-id").textContent = "none yet";
  if (why) notice(why);
}

// A reloaded tab: its episode as it was, with the action it was writing.
async function resumeEpisode() {
  const session = kept(KEPT.session);
  if (typeof session !== "string") return;
  state.session = session;
  $("#session-id").textContent = session;
  const answer = await api("/web/api/resume");
  if (answer.status === 404) {
    forgetSession("The episode this tab was playing is gone: its session sat idle past the server's timeout, or the server restarted. Start another.");
    return;
  }
  if (!answer.ok) return; // a session with no episode yet: it is kept for the first one
  await loadDecisions();
  await loadLimits();
  showEpisode(answer.body.observation, answer.body.done);
  const played = kept(KEPT.transcript);
  state.transcript = played && played.session === session && played.task === state.obs.task_id ? played.rows : [];
  renderTranscript();
  restoreDraft();
  await refreshGrade(answer.body.done);
  if (answer.body.done) endEpisode(false);
}

function saveDraft() {
  if (!state.obs) return;
  const fields = {};
  for (const input of $("#action-fields").querySelectorAll("input, select, textarea")) {
    fields[input.name] = input.type === "checkbox" ? input.checked : input.value;
  }
  keep(KEPT.draft, { task: state.obs.task_id, type: $("#action-type").value, fields, selected: state.selected });
}

function restoreDraft() {
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

// ------------------------------------------------------------------ setup form
function tasksFor(mode) {
  return state.setup.tasks.filter((t) => t.mode === mode);
}

function fillSelect(select, values, labels = {}) {
  put(select, ...values.map((v) => el("option", { value: v, text: labels[v] || v })));
}

function onTaskChange() {
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

function onModeChange() {
  const mode = $("#setup-mode").value;
  const tasks = tasksFor(mode);
  fillSelect($("#setup-task"), tasks.map((t) => t.task_id),
    Object.fromEntries(tasks.map((t) => [t.task_id, `${t.task_id} (${t.difficulty}) – ${t.title}`])));
  onTaskChange();
}

async function loadSetup() {
  const answer = await api("/web/api/setup");
  state.setup = answer.body;
  const modes = [...new Set(state.setup.tasks.map((t) => t.mode))];
  fillSelect($("#setup-mode"), modes);
  fillSelect($("#setup-split"), state.setup.splits);
  fillSelect($("#setup-difficulty"), state.setup.difficulties);
  $("#setup-difficulty").value = "medium";
  put($("#knob-fields"), ...state.setup.knobs.map((k) => el("label", {},
    k.name, " ",
    el("input", { id: `knob-${k.name}`, name: k.name, type: "number", min: k.min, max: k.max,
      step: k.integer ? 1 : 0.05 }))));
  const first = state.setup.default_task.split("/")[0];
  $("#setup-mode").value = first;
  onModeChange();
  $("#setup-task").value = state.setup.default_task;
  onTaskChange();
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

function answerReplace(yes) {
  $("#replace-confirm").hidden = true;
  if (!yes) { $("#start-button").focus(); return; }
  state.replacing = true;
  $("#setup-form").requestSubmit();
}

async function startEpisode(event) {
  event.preventDefault();
  if (inProgress() && !state.replacing) { askToReplace(); return; }
  state.replacing = false;
  $("#replace-confirm").hidden = true;
  if (!state.session) await openSession();
  const task = state.setup.tasks.find((t) => t.task_id === $("#setup-task").value);
  const body = { task: task.task_id, seed: Number($("#setup-seed").value || 0), observation: "full" };
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
    notice(`Could not start: ${e.field} ${e.message}${e.allowed}`);
    return;
  }
  notice("");
  state.closed = false;
  keep(KEPT.draft, null);
  state.decisions = {};
  state.transcript = [];
  await loadLimits();
  keep(KEPT.transcript, null);
  showEpisode(answer.body.observation, answer.body.done);
  renderTranscript();
  await refreshGrade(false);
  $("#mail-list").focus();
}

function showEpisode(observation, done) {
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
function endEpisode(scroll = true) {
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

function setFormOpen(open) {
  for (const control of $("#action-form").querySelectorAll("select, input, textarea, button")) {
    control.disabled = !open;
  }
}

// ------------------------------------------------------------------ the inbox as a mail client
// One row per email or ticket, whatever the mode; in play, only what the search finds.
function mailItems(obs, searched = true) {
  let items = listedMail(obs);
  if (searched && state.search) items = items.filter((m) => matches(m, state.search));
  if (!state.bySla) return items;
  const due = (m) => (m.sla === null || m.sla === undefined ? Infinity : m.sla);
  return [...items].sort((a, b) => due(a) - due(b)); // the most urgent first; handled mail last
}

// Every word searched for is somewhere in the sender, subject, id, body or thread.
function matches(m, query) {
  const it = m.item || {};
  const text = [m.from, m.subject, m.id, m.tier, m.state, it.sender, it.body, it.message,
    ...(it.thread || []).map((t) => t.body || ""), ...(it.customer_messages || []).map((t) => t.body || t.text || "")]
    .filter(Boolean).join(" ").toLowerCase();
  return query.toLowerCase().split(/\s+/).filter(Boolean).every((w) => text.includes(w));
}

function onSearch() {
  const chosen = state.obs ? mailItems(state.obs)[state.selected] : null;
  state.search = $("#mail-search").value.trim();
  if (!state.obs) return;
  const items = mailItems(state.obs);
  state.selected = Math.max(0, chosen ? items.findIndex((m) => m.id === chosen.id) : 0);
  renderEpisode();
  const total = listedMail(state.obs).length;
  announce(state.search ? `${items.length} of ${total} mails match` : `All ${total} mails shown`);
}

function listedMail(obs) {
  if (obs.mode === "triage") {
    const current = obs.current_email && obs.current_email.email_id;
    return (obs.inbox || []).map((m) => ({
      id: m.email_id, idField: "email_id", from: m.sender, subject: m.subject,
      tier: m.sender_role && m.sender_role !== "customer" ? m.sender_role.replace("_", " ") : m.customer_tier, sla: m.processed ? null : m.sla_deadline,
      state: m.processed ? "triaged" : (m.email_id === current ? "current" : "waiting"), item: m,
    }));
  }
  if (obs.mode === "inbox") {
    return (obs.tickets || []).map((t) => ({
      id: t.ticket_id, idField: "ticket_id", from: t.customer_name, subject: t.subject,
      tier: t.customer_tier, sla: ["resolved", "escalated"].includes(t.status) ? null : t.sla_deadline,
      state: t.status, item: t,
    }));
  }
  const subject = obs.title || (obs.customer_message || "").split(/[.!?\n]/)[0].slice(0, 80);
  const parts = [obs.priority, obs.routed_team, ...(obs.tags || [])].filter(Boolean);
  return [{
    id: obs.ticket_id, idField: "ticket_id", from: obs.customer_name, subject,
    tier: obs.customer_tier, sla: null, state: parts.length ? parts.join(" · ") : "new",
    item: {
      ticket_id: obs.ticket_id, customer_name: obs.customer_name, customer_tier: obs.customer_tier,
      customer_account: obs.customer_account, message: obs.customer_message,
      customer_messages: obs.customer_messages, draft_reply: obs.draft_reply,
      info_requested: obs.info_requested, tags: obs.tags,
    },
  }];
}

// Each label stays beside its value (a pair is one box that wraps as a whole).
function renderStatus(target, obs, session = null) {
  const pairs = [
    ["Clock", `minute ${obs.now}`],
    ["Step budget", `${obs.step_count} used of ${obs.max_steps}`],
  ];
  if (obs.escalation_budget_remaining !== null && obs.escalation_budget_remaining !== undefined) {
    pairs.push(["Escalation budget", String(obs.escalation_budget_remaining)]);
  }
  const queues = obs.team_queue_remaining || {};
  if (Object.keys(queues).length) {
    pairs.push(["Queue room", Object.entries(queues).map(([q, n]) => `${q} ${n}`).join(", ")]);
  }
  if (obs.sla_breaches_so_far !== null && obs.sla_breaches_so_far !== undefined) {
    pairs.push(["SLA breaches", String(obs.sla_breaches_so_far)]);
  }
  if ((obs.active_sla_warnings || []).length) pairs.push(["SLA warnings", obs.active_sla_warnings.join(", ")]);
  pairs.push(["Progress", fmt(obs.progress_score)]);
  if (obs.done) pairs.push(["Episode", "ended"]);
  if (session) pairs.push(["Session", session]);
  put(target, ...pairs.map(([k, v]) => el("div", { class: k === "Session" && state.closed ? "pair gone" : "pair" },
    el("dt", { text: k }), el("dd", { text: v }))));
}

function sessionText() {
  if (state.closed) return "closed: the episode is gone";
  const idle = state.setup && state.setup.idle_timeout_s;
  if (!idle) return "open";
  return `open (closes after ${idle < 120 ? `${Math.round(idle)} s` : `${Math.round(idle / 60)} min`} without a step)`;
}

// The session went (it sat idle past the server's timeout, or the server restarted): said in
// the status bar, the form and the notice, and the page stops acting as if it were live.
function sessionClosed() {
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
async function checkIdle() {
  const idle = state.setup && state.setup.idle_timeout_s;
  if (!idle || !state.session || !state.obs || state.obs.done || state.closed) return;
  if (Date.now() - state.lastUsed < idle * 1000) return;
  const answer = await api("/web/api/limits");
  if (answer.status === 404) sessionClosed();
}

async function loadLimits() {
  const answer = await api("/web/api/limits");
  state.limits = answer.ok ? answer.body : null;
}

function renderMailList(tbody, obs, selected, onPick, searched = true) {
  const items = mailItems(obs, searched);
  if (!items.length && searched && state.search) {
    put(tbody, el("tr", {}, el("td", { colspan: 5, class: "muted", text: `No mail matches "${state.search}" (Escape in the search box clears it).` })));
    return items;
  }
  put(tbody, ...items.map((m, i) => el("tr", {
    class: `state-${m.state.split(" ")[0]}${i === selected ? " selected" : ""}`,
    "aria-selected": i === selected ? "true" : "false",
    "data-id": m.id,
    onclick: onPick ? () => onPick(i) : null,
  }, el("td", { text: m.from || "" }), el("td", { text: m.subject || "" }),
  el("td", { text: m.tier || "" }), el("td", { class: m.sla !== null && m.sla < obs.now ? "overdue" : "", text: slaText(m.sla, obs.now) }),
  el("td", { class: "state", text: m.state }))));
  return items;
}

function renderMessages(list, title) {
  if (!list || !list.length) return null;
  return el("section", {}, el("h5", { text: title }), ...list.map((m) => el("blockquote", {},
    el("p", { class: "muted", text: [m.sender || m.kind, m.minute !== undefined ? `minute ${m.minute}` : null,
      m.minutes_ago !== undefined ? `${m.minutes_ago} min before` : null].filter(Boolean).join(" · ") }),
    el("p", { class: "body", text: typeof m === "string" ? m : (m.body || m.text || JSON.stringify(m)) }))));
}

// "premium customer", or who the sender is where they are not a customer (generator v2 says).
function standing(m) {
  if (m.sender_role && m.sender_role !== "customer") return m.sender_role.replace("_", " ");
  return m.customer_tier ? `${m.customer_tier} customer` : "";
}

function renderReading(target, entry) {
  if (!entry) { put(target, el("p", { class: "muted", text: "Nothing selected." })); return; }
  const m = entry.item;
  const who = [m.customer_name, m.customer_account, m.customer_company].filter(Boolean).join(" · ");
  put(target, 
    el("h4", { text: m.subject || entry.subject || entry.id }),
    el("p", { class: "muted", text: [entry.id, m.sender, who, standing(m)].filter(Boolean).join(" · ") }),
    el("p", { class: "body", text: m.body || m.message || "" }),
    renderMessages(m.thread, "Earlier in the thread"),
    renderMessages(m.customer_messages, "The customer's answers"),
    renderMessages((m.internal_notes || []).map((n) => ({ kind: "note", body: n })), "Internal notes (staff only)"),
    renderMessages((m.responses_sent || []).map((r) => ({ kind: "sent", body: typeof r === "string" ? r : JSON.stringify(r) })), "Responses sent"),
    m.draft_reply ? renderMessages([{ kind: "draft", body: m.draft_reply }], "Draft reply") : null,
    m.tags && m.tags.length ? el("p", { text: `Tags: ${m.tags.join(", ")}` }) : null,
    m.priority || m.queue ? el("p", { text: `Priority ${m.priority || "–"} · queue ${m.queue || "–"}${m.sentiment ? " · " + m.sentiment : ""}` }) : null,
    renderDecision((state.decisions || {})[entry.id]),
  );
}

// What was decided for a mail (from /state): handled mail shows it, not only the event list.
const DECIDED = [
  ["priority", "Priority"], ["category", "Category"], ["queue", "Routed to"], ["sentiment", "Sentiment"],
  ["escalated_to", "Escalated to"], ["resolution", "Resolution"],
];
function renderDecision(work) {
  if (!work) return null;
  const rows = DECIDED.filter(([key]) => work[key]).map(([key, label]) => [label, String(work[key])]);
  if (work.tags && work.tags.length) rows.push(["Tags", work.tags.join(", ")]);
  if (work.flagged) rows.push(["Review", "flagged"]);
  if (work.templates_sent && work.templates_sent.length) rows.push(["Templates sent", work.templates_sent.join(", ")]);
  if (work.has_reply) rows.push(["Reply", "drafted"]);
  if (work.info_requested) rows.push(["Information", "requested"]);
  if (!rows.length) return null;
  return el("section", { class: "decision", "aria-label": "Decided" }, el("h5", { text: "Decided" }),
    el("dl", { class: "action" }, ...rows.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })])));
}

async function loadDecisions() {
  const answer = await api("/state");
  state.decisions = answer.ok ? answer.body.tickets || {} : {};
}

function renderEvents(target, events) {
  if (!events || !events.length) { put(target, ); return; }
  put(target, el("h4", { text: "Recent events" }), el("ul", {},
    ...events.map((e) => el("li", { text: `minute ${e.minute} · ${e.kind}${e.ticket_id ? " · " + e.ticket_id : ""}${e.detail ? " – " + e.detail : ""}` }))));
}

// The policy is Markdown: headings, lists, tables and paragraphs are enough to read it.
function renderPolicy(target, text) {
  const out = [];
  let para = [];
  let list = null;
  let table = null;
  const inline = (line) => {
    const node = el("span");
    line.split(/(\*\*[^*]+\*\*|`[^`]+`)/).forEach((part) => {
      if (part.startsWith("**") && part.endsWith("**")) node.append(el("strong", { text: part.slice(2, -2) }));
      else if (part.startsWith("`") && part.endsWith("`")) node.append(el("code", { text: part.slice(1, -1) }));
      else node.append(part);
    });
    return node;
  };
  const flush = () => {
    if (para.length) out.push(el("p", {}, inline(para.join(" "))));
    para = [];
    list = null;
    table = null;
  };
  for (const raw of (text || "").split("\n")) {
    const line = raw.trim();
    const heading = line.match(/^(#{1,4})\s+(.*)$/);
    if (!line) { flush(); continue; }
    if (heading) { flush(); out.push(el(`h${Math.min(6, heading[1].length + 3)}`, { text: heading[2] })); continue; }
    if (line.startsWith("|")) {
      const cells = line.slice(1, line.endsWith("|") ? -1 : undefined).split("|").map((c) => c.trim());
      if (cells.every((c) => /^:?-+:?$/.test(c))) continue;
      if (!table) { flush(); table = el("table", { class: "policy-table" }); out.push(table); table.append(el("tr", {}, ...cells.map((c) => el("th", { scope: "col" }, inline(c))))); continue; }
      table.append(el("tr", {}, ...cells.map((c) => el("td", {}, inline(c)))));
      continue;
    }
    if (/^[-*]\s+/.test(line)) {
      if (para.length) { out.push(el("p", {}, inline(para.join(" ")))); para = []; }
      if (!list) { list = el("ul"); out.push(list); }
      list.append(el("li", {}, inline(line.replace(/^[-*]\s+/, ""))));
      continue;
    }
    if (list && raw.startsWith("  ")) { list.lastChild.append(" ", inline(line)); continue; }
    list = null;
    para.push(line);
  }
  flush();
  put(target, ...out);
}

function pick(index) {
  const items = mailItems(state.obs);
  if (!items.length) return;
  state.selected = Math.max(0, Math.min(items.length - 1, index));
  renderEpisode();
  preselectId();
}

function renderEpisode() {
  const obs = state.obs;
  renderStatus($("#status-bar"), obs, sessionText());
  const items = renderMailList($("#mail-list tbody"), obs, state.selected, pick);
  renderReading($("#reading-pane"), items[state.selected]);
  renderEvents($("#events"), obs.recent_events);
  const ended = obs.done || state.closed;
  $("#act-button").disabled = ended;
  $("#action-type").disabled = ended;
  if (!$("#action-type").options.length || $("#action-type").dataset.task !== obs.task_id) buildActionTypes();
  else refreshIdOptions();
}

// ------------------------------------------------------------------ the action form
// What the episode's policy asks of free text (GET /web/api/limits: a pack's policy may set
// its own), counted as the player writes: a summary's characters, a reply's words.
const words = (text) => (text.trim() ? text.trim().split(/\s+/).length : 0);
const limit = (name, fallback) => (state.limits && state.limits[name]) || fallback;
const LIMITS = {
  summary: (t) => {
    const most = limit("summary_max_chars", 280);
    return `${t.length} of ${most} characters${t.length > most ? ": over the policy's limit" : ""}`;
  },
  reply_draft: (t) => replyCount(t),
  response_text: (t) => replyCount(t),
};
function replyCount(text) {
  const n = words(text);
  const low = limit("reply_min_words", 20), high = limit("reply_max_words", 220);
  if (!n) return `0 words (a reply has ${low} to ${high})`;
  if (n < low) return `${n} words: under the policy's ${low}`;
  if (n > high) return `${n} words: over the policy's ${high}`;
  return `${n} words (${low} to ${high})`;
}

// What a field's label says beside its name where the schema leaves it optional: the grade
// may still count it, and the policy may still ask for it.
const OPTIONAL = {
  summary: "graded: the policy asks for one",
  reply_draft: "when the mail needs a reply",
  flag_review: "when the policy says so",
  response_text: "your own words beside the template",
};

// A length refusal said before anything is sent, in the server's own words: a field longer
// than any field may be, or an action larger than a request may be (the longest field named).
function tooLong(action) {
  const most = limit("text_max_chars", 8000);
  for (const [name, value] of Object.entries(action)) {
    if (typeof value === "string" && value.length > most) {
      return { field: name, message: `may be at most ${most} characters (it has ${value.length})` };
    }
  }
  const bytes = new TextEncoder().encode(JSON.stringify({ action })).length;
  const cap = limit("body_max_bytes", 65536);
  if (bytes <= cap) return null;
  const longest = Object.entries(action).filter(([, v]) => typeof v === "string")
    .sort((a, b) => b[1].length - a[1].length)[0];
  return { field: longest ? longest[0] : "action", message: `may be at most ${cap} bytes with the rest of the action (it has ${bytes})` };
}

// The ticket mode's one ``value`` field means something different for each tool.
const VALUE_LABELS = {
  set_priority: "value: the priority", route_team: "value: the team", add_tag: "value: a tag",
  draft_reply: "value: the reply to the customer", request_info: "value: what to ask the customer for",
};
function buildActionTypes() {
  const schema = state.obs.action_schema;
  const kinds = state.obs.allowed_actions.filter((k) => schema[k]);
  fillSelect($("#action-type"), kinds);
  $("#action-type").dataset.task = state.obs.task_id;
  buildActionFields();
}

function idChoices(field) {
  const items = listedMail(state.obs).filter((m) => m.idField === field);
  const open = items.filter((m) => !["triaged", "resolved"].includes(m.state));
  return (open.length ? open : items).map((m) => m.id);
}

function choicesFor(kind, field) {
  const vocab = state.obs.vocabulary || {};
  if (field === "email_id" || field === "ticket_id") return idChoices(field);
  if (field === "value" && state.setup.value_vocabulary[kind]) {
    return vocab[state.setup.value_vocabulary[kind]] || [];
  }
  const list = state.setup.field_vocabulary[field];
  if (!list) return null;
  const values = vocab[list];
  return Array.isArray(values) ? values : Object.keys(values || {});
}

function buildActionFields() {
  const kind = $("#action-type").value;
  const spec = state.obs.action_schema[kind] || { required: [], optional: [] };
  const rows = [];
  for (const [field, required] of [...spec.required.map((f) => [f, true]), ...spec.optional.map((f) => [f, false])]) {
    const named = field === "value" ? VALUE_LABELS[kind] || "value" : field;
    const label = `${named}${required ? "" : ` (${OPTIONAL[field] || "optional"})`}`;
    const id = `field-${field}`;
    if (field === "flag_review") {
      rows.push(el("label", { class: "check" }, el("input", { id, name: field, type: "checkbox" }), " ", label));
      continue;
    }
    const choices = choicesFor(kind, field);
    if (choices) {
      const room = state.obs.team_queue_remaining || {};
      const full = (c) => (field === "route_to" || field === "queue" || kind === "route_team") && room[c] === 0;
      const templates = field === "response_template" ? (state.obs.vocabulary || {}).templates || {} : {};
      const shown = (c) => (templates[c] ? `${c}: ${templates[c].slice(0, 60)}…` : c);
      const select = el("select", { id, name: field, required: required || null },
        el("option", { value: "", text: required ? "choose…" : "(leave unset)" }),
        ...choices.map((c) => el("option", { value: c, text: full(c) ? `${c} (full)` : shown(c), "data-full": full(c) })));
      rows.push(el("label", {}, label, " ", select));
      if (field === "response_template") {
        const preview = el("p", { id: "template-preview", class: "template-preview muted", "aria-live": "polite" });
        select.addEventListener("change", () => { preview.textContent = templates[select.value] || ""; });
        rows.push(preview);
      }
    } else {
      const limit = LIMITS[field] || (field === "value" && kind === "draft_reply" ? replyCount : null);
      const area = el("textarea", { id, name: field, rows: field === "summary" ? 2 : 4, required: required || null,
        "aria-describedby": limit ? `${id}-count` : null });
      rows.push(el("label", {}, label, " ", area));
      if (limit) {
        const counter = el("p", { id: `${id}-count`, class: "counter muted", "aria-live": "polite" });
        const count = () => { counter.textContent = limit(area.value); counter.classList.toggle("over", /over|under/.test(counter.textContent)); };
        area.addEventListener("input", count);
        count();
        rows.push(counter);
      }
    }
  }
  put($("#action-fields"), ...rows);
  preselectId();
}

// The id fields start on the selected mail when it is still open, else on the current email.
function preselectId() {
  const chosen = mailItems(state.obs)[state.selected];
  const current = state.obs.current_email && state.obs.current_email.email_id;
  for (const field of ["email_id", "ticket_id"]) {
    const select = $(`#field-${field}`);
    if (!select) continue;
    const has = (id) => id && [...select.options].some((o) => o.value === id);
    if (chosen && chosen.idField === field && has(chosen.id)) select.value = chosen.id;
    else if (field === "email_id" && has(current) && select.value === "") select.value = current;
  }
}

function refreshIdOptions() {
  for (const field of ["email_id", "ticket_id"]) {
    const select = $(`#field-${field}`);
    if (!select) continue;
    const before = select.value;
    const blank = select.options.length && select.options[0].value === "" ? select.options[0].textContent : null;
    put(select, ...(blank ? [el("option", { value: "", text: blank })] : []),
      ...idChoices(field).map((c) => el("option", { value: c, text: c })));
    if ([...select.options].some((o) => o.value === before)) select.value = before;
  }
  preselectId();
}

function actionFromForm() {
  const action = { action_type: $("#action-type").value };
  for (const input of $("#action-fields").querySelectorAll("input, select, textarea")) {
    if (input.type === "checkbox") { if (input.checked) action[input.name] = true; continue; }
    if (input.value !== "") action[input.name] = input.value;
  }
  return action;
}

function showRefusal(e) {
  put($("#step-result"), el("p", { class: "refused", role: "alert" },
    el("strong", { text: "Refused: " }), `${e.field} ${e.message}${e.allowed || ""}`),
  el("p", { class: "muted", text: "A refused action costs no step." }));
  markRefused(e.field);
}

async function takeAction(event) {
  event.preventDefault();
  const action = actionFromForm();
  const long = tooLong(action);
  if (long) { showRefusal(long); return; }
  const answer = await api("/step", { method: "POST", body: JSON.stringify({ action }) });
  const box = $("#step-result");
  if (answer.status === 404) {
    put(box, el("p", { class: "refused", role: "alert", text: "This tab's session has closed; nothing was done. Start the episode again." }));
    sessionClosed();
    return;
  }
  if (!answer.ok) {
    showRefusal(describeError(answer.body));
    return;
  }
  // A step's observation leaves out what only a reset sends (the policy, the action schema).
  const sent = Object.fromEntries(Object.entries(answer.body.observation).filter(([, v]) => v !== null));
  state.obs = { ...state.obs, ...sent, last_action_error: answer.body.observation.last_action_error,
    done: answer.body.done };
  const reward = answer.body.reward;
  const err = state.obs.last_action_error;
  put(box, 
    el("p", {}, el("strong", { text: "Reward " }), el("output", { id: "last-reward", text: fmt(reward, 4) })),
    el("p", { id: "last-feedback", text: state.obs.last_feedback }),
    err ? el("p", { class: "refused", text: `Error: ${err.field} ${err.message}${err.allowed ? " (allowed: " + err.allowed.join(", ") + ")" : ""}` }) : null,
    el("p", {}, el("strong", { id: "side-grade-label", text: "Grade so far " }), el("output", { id: "side-grade" }),
      el("a", { href: "#grade-panel", class: "muted", text: " (every component below)" })),
  );
  const items = mailItems(state.obs);
  const next = items.findIndex((m) => ["current", "open", "waiting"].includes(m.state));
  if (next >= 0 && state.obs.mode === "triage") state.selected = next;
  renderEpisode();
  buildActionFields(); // a fresh form: queue room and open ids have changed
  keep(KEPT.draft, null);
  await loadDecisions();
  renderReading($("#reading-pane"), mailItems(state.obs)[state.selected]);
  const before = state.grade ? state.grade.score : 0;
  await refreshGrade(answer.body.done);
  const after = state.grade ? state.grade.score : null;
  state.transcript.push({ step: state.obs.step_count, action, reward, error: err ? `${err.field} ${err.message}` : "",
    grade: after, penalty: after === null ? null : penaltyOf(before, after, reward) });
  keep(KEPT.transcript, { task: state.obs.task_id, session: state.session, rows: state.transcript });
  renderTranscript();
  if (answer.body.done) endEpisode();
}

// The refused field, marked and focused, so the player sees what to change.
function markRefused(field) {
  for (const marked of document.querySelectorAll("#action-form [aria-invalid]")) marked.removeAttribute("aria-invalid");
  const input = $(`#field-${field}`) || (field === "action_type" ? $("#action-type") : null);
  if (!input) return;
  input.setAttribute("aria-invalid", "true");
  input.focus();
}

// ------------------------------------------------------------------ the transcript
// Every step of the episode: its action, reward, penalty and error, and the grade after it,
// with a chart of the step rewards and the grade (inline SVG: nothing fetched). Play keeps it
// as it goes; replay and compare make it from the re-simulated steps.

// A step's penalty: what its reward fell short of the grade's rise (reward = rise - penalty).
function penaltyOf(before, after, reward) {
  const p = after - before - reward;
  return Math.abs(p) < 5e-5 ? 0 : p;
}

const actionText = (action) => Object.entries(action).map(([k, v]) => `${k}=${String(v).slice(0, 60)}`).join(" · ");

function transcriptRows(tbody, rows, { onPick = null, differs = null } = {}) {
  put(tbody, ...rows.map((r) => el("tr", {
    "data-step": r.step, class: differs && differs(r.step) ? "differs" : "",
    onclick: onPick ? () => onPick(r.step) : null,
  },
  el("td", {}, onPick ? el("button", { type: "button", class: "link", text: String(r.step), "aria-label": `Go to step ${r.step}` }) : String(r.step)),
  el("td", { class: "action-cell", text: actionText(r.action) }),
  el("td", { class: r.reward < 0 ? "num refused" : "num", text: fmt(r.reward, 4) }),
  el("td", { class: r.penalty > 0 ? "num refused" : "num", text: r.penalty === null || r.penalty === undefined ? "–" : fmt(r.penalty, 4) }),
  el("td", { class: "num", text: fmt(r.grade) }),
  el("td", { class: "refused", text: r.error }))));
}

function renderTranscript() {
  const rows = state.transcript;
  $("#transcript").hidden = !rows.length;
  transcriptRows($("#transcript-table tbody"), rows);
  put($("#transcript-chart"), rewardChart(rows.map((r) => r.reward), rows.map((r) => r.grade)));
}

// A replayed episode's steps as transcript rows.
function replayRows(rep) {
  let before = rep.start_grade ? rep.start_grade.value : 0;
  return rep.steps.map((s) => {
    const row = { step: s.step, action: s.action, reward: s.reward, grade: s.grade.value,
      penalty: penaltyOf(before, s.grade.value, s.reward), error: s.error ? `${s.error.field} ${s.error.message}` : "" };
    before = s.grade.value;
    return row;
  });
}

function transcriptSection(rep, other) {
  const rows = replayRows(rep);
  const table = el("table", { class: "grade-table transcript-table" },
    el("thead", {}, el("tr", {}, ...["Step", "Action", "Reward", "Penalty", "Grade after", "Error"].map((h) => el("th", { scope: "col", text: h })))),
    el("tbody"));
  const differs = other ? (step) => JSON.stringify((rep.steps[step - 1] || {}).action) !== JSON.stringify((other.steps[step - 1] || {}).action) : null;
  transcriptRows(table.tBodies[0], rows, { onPick: showStep, differs });
  return el("section", { class: "transcript replay-transcript", "aria-label": `Transcript of ${rep.record.agent} (${rep.run})` },
    el("h3", { text: `Transcript: ${rep.record.agent} · ${rep.run}` }),
    el("div", { class: "chart" }, rewardChart(rows.map((r) => r.reward), rows.map((r) => r.grade))),
    table);
}

// Scaled to what the episode reached (a grade of 0.2 fills the height, not a fifth of it),
// with the top value written on the axis.
function rewardChart(rewards, grades) {
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

// ------------------------------------------------------------------ the grade
function renderGradeTable(tbody, components, others = null) {
  put(tbody, ...Object.entries(components || {}).map(([name, c]) => el("tr", { "data-component": name },
    el("th", { scope: "row", text: name }), el("td", { text: fmt(c.weight, 2) }),
    el("td", { class: "score", text: fmt(c.score) }),
    others ? el("td", { class: "delta", text: others[name] ? delta(c.score, others[name].score) : "–" }) : null,
    el("td", { text: c.explanation }))));
}

// The difference of a score from the other episode's, signed ("+0.250", "−0.100", "=").
function delta(mine, theirs) {
  const d = mine - theirs;
  if (Math.abs(d) < 0.0005) return "=";
  return `${d > 0 ? "+" : "−"}${Math.abs(d).toFixed(3)}`;
}

// An action's fields as [name, text, differs from the other's]: compare marks each field that
// differs, not only the whole step.
function actionFields(action, other) {
  const names = [...new Set([...Object.keys(action), ...Object.keys(other || {})])];
  return names.filter((k) => k in action || other).map((k) => [k, k in action ? String(action[k]) : "(not set)",
    Boolean(other) && JSON.stringify(action[k]) !== JSON.stringify(other[k])]);
}

async function refreshGrade(final) {
  const answer = await api("/grader");
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

// ------------------------------------------------------------------ runs
function episodeHash(row) {
  return `#/replay/${encodeURIComponent(row.run)}/${encodeURIComponent(row.key)}`;
}

async function loadRuns(event) {
  if (event) event.preventDefault();
  const params = new URLSearchParams();
  for (const [name, sel] of [["run", "#filter-run"], ["agent", "#filter-agent"], ["task", "#filter-task"],
    ["min_grade", "#filter-min"], ["max_grade", "#filter-max"]]) {
    if ($(sel).value !== "") params.set(name, $(sel).value);
  }
  for (const marked of document.querySelectorAll("#filter-form [aria-invalid]")) marked.removeAttribute("aria-invalid");
  const answer = await api(`/web/api/episodes?${params}`);
  if (!answer.ok) {
    const e = describeError(answer.body);
    notice(`Filter refused: ${e.field} ${e.message}${e.allowed}`);
    $("#runs-count").textContent = "No episodes listed: the filter was refused.";
    state.runsRows = [];
    renderRunsTable();
    const input = { min_grade: "#filter-min", max_grade: "#filter-max", run: "#filter-run", agent: "#filter-agent", task: "#filter-task" }[e.field];
    if (input) { $(input).setAttribute("aria-invalid", "true"); $(input).focus(); }
    return;
  }
  notice("");
  const data = answer.body;
  $("#runs-empty").hidden = data.runs.length > 0;
  for (const [sel, values] of [["#filter-run", data.runs], ["#filter-agent", data.agents], ["#filter-task", data.tasks]]) {
    const select = $(sel);
    const before = select.value;
    put(select, el("option", { value: "", text: "all" }), ...values.map((v) => el("option", { value: v, text: v })));
    select.value = values.includes(before) ? before : "";
  }
  state.runsRows = data.episodes;
  state.runsSelected = Math.min(state.runsSelected, Math.max(0, data.episodes.length - 1));
  $("#runs-count").textContent = data.total > data.episodes.length
    ? `${data.total} episodes match; the first ${data.episodes.length} are shown.`
    : `${data.total} episodes match.`;
  renderRunsTable();
}

function toggleSlaSort() {
  const chosen = state.obs ? mailItems(state.obs)[state.selected] : null;
  state.bySla = !state.bySla;
  $("#sort-sla").setAttribute("aria-pressed", String(state.bySla));
  if (!state.obs) return;
  const items = mailItems(state.obs);
  state.selected = Math.max(0, chosen ? items.findIndex((m) => m.id === chosen.id) : 0);
  renderEpisode();
  announce(state.bySla ? "Inbox sorted by SLA deadline" : "Inbox in arrival order");
}

// The runs list sorts by any column: a header is a button; again reverses the order.
const SORT_KEYS = [null, "run", "agent", "task", "seed", "split", "grade", "steps", null];
function sortableRuns() {
  $("#runs-table").querySelectorAll("thead th").forEach((th, i) => {
    const key = SORT_KEYS[i];
    if (!key) return;
    const label = th.textContent;
    put(th, el("button", { type: "button", class: "sort", text: label, "aria-label": `Sort by ${label}`, onclick: () => sortRuns(key) }));
    th.dataset.sort = key;
  });
}

function sortRuns(key) {
  const same = state.runsSort && state.runsSort.key === key;
  state.runsSort = { key, dir: same && state.runsSort.dir === "ascending" ? "descending" : "ascending" };
  renderRunsTable();
}

function sortedRows(rows) {
  if (!state.runsSort) return rows;
  const { key, dir } = state.runsSort;
  const value = (r) => (key === "split" ? `${r.split || ""}/${r.difficulty || ""}` : r[key]);
  const order = (a, b) => (typeof value(a) === "number" && typeof value(b) === "number"
    ? value(a) - value(b) : String(value(a)).localeCompare(String(value(b))));
  return [...rows].sort((a, b) => (dir === "ascending" ? order(a, b) : order(b, a)));
}

function renderRunsTable() {
  state.runsRows = sortedRows(state.runsRows);
  $("#runs-table").querySelectorAll("thead th").forEach((th) => {
    if (th.dataset.sort) th.setAttribute("aria-sort", state.runsSort && state.runsSort.key === th.dataset.sort ? state.runsSort.dir : "none");
  });
  const tbody = $("#runs-table tbody");
  put(tbody, ...state.runsRows.map((r, i) => el("tr", {
    class: i === state.runsSelected ? "selected" : "", "aria-selected": i === state.runsSelected ? "true" : "false",
    "data-key": r.key,
    onclick: () => selectRunRow(i),
  },
  el("td", {}, el("input", { type: "checkbox", class: "tick", disabled: !r.replayable, "aria-label": `Tick ${r.agent} on ${r.task} seed ${r.seed} to compare`, onchange: updateCompareButton })),
  el("td", { text: r.run }), el("td", { text: r.agent }), el("td", { text: r.task }), el("td", { text: String(r.seed) }),
  el("td", { text: r.split ? `${r.split} / ${r.difficulty}` : "–" }), el("td", { class: "score", text: fmt(r.grade) }),
  el("td", { text: String(r.steps) }),
  el("td", {}, r.replayable ? el("a", { href: episodeHash(r), text: "replay", "aria-label": `Replay ${r.agent} on ${r.task} seed ${r.seed} (${r.run})` }) : el("span", { class: "muted", text: "no trajectory" })))));
  updateCompareButton();
}

function selectRunRow(index) {
  state.runsSelected = index;
  document.querySelectorAll("#runs-table tbody tr").forEach((tr, i) => {
    tr.classList.toggle("selected", i === index);
    tr.setAttribute("aria-selected", i === index ? "true" : "false");
  });
}

function tickedRows() {
  return [...document.querySelectorAll("#runs-table tbody tr")]
    .map((tr, i) => (tr.querySelector(".tick").checked ? state.runsRows[i] : null)).filter(Boolean);
}

function updateCompareButton() {
  const ticked = tickedRows();
  const button = $("#compare-button");
  const same = ticked.length === 2 && ticked[0].task === ticked[1].task && ticked[0].seed === ticked[1].seed
    && ticked[0].split === ticked[1].split && ticked[0].difficulty === ticked[1].difficulty;
  button.disabled = !same;
  button.title = ticked.length === 2 && !same ? "Tick two episodes of the same task and seed" : "";
}

function compareTicked() {
  const [a, b] = tickedRows();
  location.hash = `#/compare/${[a.run, a.key, b.run, b.key].map(encodeURIComponent).join("/")}`;
}

// ------------------------------------------------------------------ replay
// Nothing of the last replay stays on screen while another loads or when one cannot open.
function clearReplay() {
  state.replay = null;
  put($("#replay-banner"));
  put($("#replay-strip"));
  put($("#replay-transcripts"));
  $("#replay-total").textContent = "0";
  for (const id of ["#replay-step", "#replay-slider"]) { $(id).value = "0"; $(id).max = "0"; }
  for (const control of document.querySelectorAll(".replay-controls button, .replay-controls input")) control.disabled = true;
}

async function openReplay(parts) {
  clearReplay();
  put($("#replay-panes"), el("p", { class: "muted", text: "Re-simulating…" }));
  let answer;
  if (parts.length !== 2 && parts.length !== 4) {
    answer = { ok: false, body: { error: { field: "address", message: "names no episode (#/replay/RUN/KEY or #/compare/RUN/KEY/RUN/KEY)" } } };
  } else if (parts.length === 2) {
    answer = await api(`/web/api/replay?${new URLSearchParams({ run: parts[0], key: parts[1] })}`);
    if (answer.ok) state.replay = { a: answer.body, b: null, differs: null };
  } else {
    answer = await api(`/web/api/compare?${new URLSearchParams({ a_run: parts[0], a_key: parts[1], b_run: parts[2], b_key: parts[3] })}`);
    if (answer.ok) state.replay = { a: answer.body.a, b: answer.body.b, differs: answer.body.first_difference };
  }
  if (!answer.ok) {
    state.replay = null;
    const e = describeError(answer.body);
    put($("#replay-panes"), el("p", { class: "refused", role: "alert", text: `Cannot replay: ${e.field} ${e.message}` }),
      el("p", {}, el("a", { href: "#/runs", text: "Back to the runs list" })));
    return;
  }
  for (const control of document.querySelectorAll(".replay-controls button, .replay-controls input")) control.disabled = false;
  $("#replay-title").textContent = parts.length === 2 ? "Replay" : "Compare";
  const r = state.replay;
  r.total = Math.max(r.a.steps.length, r.b ? r.b.steps.length : 0);
  r.step = r.differs ? Math.max(0, r.differs - 1) : 0;
  for (const id of ["#replay-step", "#replay-slider"]) $(id).max = String(r.total);
  $("#replay-total").textContent = String(r.total);
  renderBanner();
  renderStrip();
  put($("#replay-transcripts"), transcriptSection(r.a, r.b), r.b ? transcriptSection(r.b, r.a) : null);
  $("#replay-transcripts").classList.toggle("two", Boolean(r.b));
  showStep(r.step);
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
      s && s.error ? el("p", { class: "refused", text: `Error: ${s.error.field} ${s.error.message}` }) : null,
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

function showStep(step) {
  const r = state.replay;
  if (!r) return;
  r.step = Math.max(0, Math.min(r.total, step));
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

// ------------------------------------------------------------------ routing and keys
function route() {
  const hash = location.hash || "#/play";
  const parts = hash.slice(2).split("/").map(decodeURIComponent);
  const view = parts[0] === "replay" || parts[0] === "compare" ? "replay" : (parts[0] === "runs" ? "runs" : "play");
  for (const name of ["play", "runs", "replay"]) $(`#${name}-view`).hidden = name !== view;
  $("#nav-play").toggleAttribute("aria-current", view === "play");
  $("#nav-runs").toggleAttribute("aria-current", view !== "play");
  if (view === "runs") loadRuns();
  if (view === "replay") openReplay(parts.slice(1));
}

function typing(target) {
  return ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName) && target.type !== "checkbox";
}

function onKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const view = ["play", "runs", "replay"].find((v) => !$(`#${v}-view`).hidden);
  if (view === "replay" && ["ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key)) {
    if (typing(event.target) && event.target.id !== "replay-step") return;
    if (event.target.id === "replay-slider") return; // the slider moves itself
    event.preventDefault();
    const r = state.replay;
    if (!r) return;
    const to = { ArrowLeft: r.step - 1, ArrowRight: r.step + 1, Home: 0, End: r.total }[event.key];
    showStep(to);
    return;
  }
  if (typing(event.target)) return;
  if (view === "play" && state.obs && event.key === "/") {
    event.preventDefault();
    $("#mail-search").focus();
    announce("Search the inbox");
    return;
  }
  if (view === "play" && state.obs && !state.obs.done && !state.closed && ["e", "r"].includes(event.key)) {
    event.preventDefault();
    actKey(event.key);
    return;
  }
  if (!["j", "k", "Enter"].includes(event.key)) return;
  if (view === "play" && state.obs && event.key !== "Enter") {
    event.preventDefault();
    pick(state.selected + (event.key === "j" ? 1 : -1));
    const item = mailItems(state.obs)[state.selected];
    if (item) announce(`Mail ${state.selected + 1} of ${mailItems(state.obs).length}: ${item.subject}, ${item.state}`);
  } else if (view === "runs" && state.runsRows.length) {
    if (event.key === "Enter") {
      if (["A", "BUTTON", "INPUT"].includes(event.target.tagName)) return; // the focused control acts
      const row = state.runsRows[state.runsSelected];
      if (row && row.replayable) location.hash = episodeHash(row);
      return;
    }
    event.preventDefault();
    state.runsSelected = Math.max(0, Math.min(state.runsRows.length - 1, state.runsSelected + (event.key === "j" ? 1 : -1)));
    state.runsRows[state.runsSelected] && document.querySelectorAll("#runs-table tbody tr")[state.runsSelected].scrollIntoView({ block: "nearest" });
    selectRunRow(state.runsSelected);
  }
}

// Keys to act: "e" opens the action form, "r" starts the reply the mode takes.
const REPLY_ACTION = { triage: ["triage_email", "reply_draft"], ticket: ["draft_reply", "value"], inbox: ["respond_ticket", "response_text"] };
function actKey(key) {
  if (key === "e") {
    $("#action-type").focus();
    announce("Action form");
    return;
  }
  const [type, field] = REPLY_ACTION[state.obs.mode] || [];
  if (!type || ![...$("#action-type").options].some((o) => o.value === type)) return;
  $("#action-type").value = type;
  buildActionFields();
  const target = $(`#field-${field}`);
  if (target) target.focus();
  announce(`Writing a reply: ${type}`);
}

// Says something to a screen reader (a polite live region), for moves that change no focus.
function announce(text) {
  $("#announce").textContent = text;
}

// Marks the page busy while an answer is awaited, and counts answers (what tests wait on).
function busy(handler) {
  return async (event) => {
    document.body.dataset.busy = "yes";
    try { await handler(event); } finally {
      delete document.body.dataset.busy;
      document.body.dataset.answers = String(Number(document.body.dataset.answers || 0) + 1);
    }
  };
}

async function main() {
  $("#setup-form").addEventListener("submit", busy(startEpisode));
  $("#setup-mode").addEventListener("change", onModeChange);
  $("#setup-task").addEventListener("change", onTaskChange);
  $("#setup-difficulty").addEventListener("change", onTaskChange);
  $("#action-form").addEventListener("submit", busy(takeAction));
  $("#action-type").addEventListener("change", () => { buildActionFields(); saveDraft(); });
  $("#action-form").addEventListener("input", saveDraft);
  $("#action-form").addEventListener("change", saveDraft);
  $("#filter-form").addEventListener("submit", loadRuns);
  $("#mail-search").addEventListener("input", onSearch);
  $("#mail-search").addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    $("#mail-search").value = "";
    onSearch();
    $("#mail-list").focus();
  });
  $("#replace-yes").addEventListener("click", () => answerReplace(true));
  $("#replace-no").addEventListener("click", () => answerReplace(false));
  $("#compare-button").addEventListener("click", compareTicked);
  $("#replay-first").addEventListener("click", () => showStep(0));
  $("#replay-back").addEventListener("click", () => showStep(state.replay.step - 1));
  $("#replay-forward").addEventListener("click", () => showStep(state.replay.step + 1));
  $("#replay-last").addEventListener("click", () => showStep(state.replay.total));
  $("#replay-step").addEventListener("change", (e) => showStep(Number(e.target.value)));
  $("#replay-step").addEventListener("keydown", (e) => { if (e.key === "Enter") showStep(Number(e.target.value)); });
  $("#replay-slider").addEventListener("input", (e) => showStep(Number(e.target.value)));
  sortableRuns();
  const slaHead = [...$("#mail-list").querySelectorAll("thead th")].find((th) => th.textContent === "SLA");
  put(slaHead, el("button", { type: "button", class: "sort", id: "sort-sla", text: "SLA", "aria-pressed": "false",
    "aria-label": "Sort the inbox by SLA deadline", onclick: toggleSlaSort }));
  $("#mail-list").tabIndex = 0;
  $("#mail-list").setAttribute("aria-label", "Inbox: j and k move the selection");
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", route);
  window.addEventListener("pagehide", leaving);
  await loadSetup();
  route(); // the session opens with the first episode, so that a visit alone takes no place
  await resumeEpisode();
  const idle = state.setup && state.setup.idle_timeout_s;
  if (idle) setInterval(checkIdle, 1000 * Math.max(1, Math.min(30, idle / 4)));
  document.body.dataset.ready = "yes";
}

main();
