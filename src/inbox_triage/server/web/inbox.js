// The inbox as a mail client: status bar, mail list (search, SLA sort), reading pane with what
// was decided, and recent events. Replays reuse its renderers.

import { $, announce, el, fmt, minutesText, put, secondsText, slaText } from "./dom.js";
import { api, keep, KEPT, state } from "./state.js";
import { listedMail, mailItems, standing } from "./mail.js";
import { buildActionTypes, preselectId, refreshIdOptions } from "./form.js";

export function onSearch() {
  const chosen = state.obs ? mailItems(state.obs)[state.selected] : null;
  state.search = $("#mail-search").value.trim();
  if (!state.obs) return;
  const items = mailItems(state.obs);
  state.selected = Math.max(0, chosen ? items.findIndex((m) => m.id === chosen.id) : 0);
  renderEpisode();
  const total = listedMail(state.obs).length;
  announce(state.search ? `${items.length} of ${total} mails match` : `All ${total} mails shown`);
}

// Each label stays beside its value (a pair is one box that wraps as a whole).
export function renderStatus(target, obs, session = null) {
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
  const mark = (k, v) => (k !== "Session" ? "pair" : (state.closed ? "pair gone" : (v.startsWith("closes in") ? "pair warn" : "pair")));
  put(target, ...pairs.map(([k, v]) => el("div", { class: mark(k, v) },
    el("dt", { text: k }), el("dd", { text: v }))));
}

export function sessionText() {
  if (state.closed) return "closed (the server ended it)";
  const idle = state.setup && state.setup.idle_timeout_s;
  if (!idle) return "open";
  const left = idle - (Date.now() - state.lastUsed) / 1000;
  if (state.obs && !state.obs.done && state.lastUsed && left < Math.min(120, idle / 2)) {
    return `closes in ${secondsText(Math.max(0, left))} unless you act, type or scroll here`;
  }
  return `open (closes after ${secondsText(idle)} with nothing done, typed or read in this tab)`;
}

// What the player has read of each mail (play only): how many of its messages the reading
// pane has shown. A mail never opened is unread; one whose customer wrote since is marked.
const messages = (m) => (m.item.customer_messages || []).length + (m.item.thread || []).length;

function marker(m, play) {
  if (!play) return null;
  const seen = state.seen[m.id];
  if (seen === undefined) return el("span", { class: "badge unread", text: "unread" });
  if (messages(m) > seen) return el("span", { class: "badge new-reply", text: "new reply" });
  return null;
}

export function markRead(m) {
  if (m) state.seen[m.id] = messages(m);
  keep(KEPT.seen, { task: state.obs.task_id, seen: state.seen });
}

export function renderMailList(tbody, obs, selected, onPick, play = true) {
  const items = mailItems(obs, play);
  if (!items.length && play && state.search) {
    put(tbody, el("tr", {}, el("td", { colspan: 5, class: "muted", text: `No mail matches "${state.search}" (Escape in the search box clears it).` })));
    return items;
  }
  const marked = Boolean(onPick); // play marks what was read
  put(tbody, ...items.map((m, i) => {
    const badge = marker(m, marked);
    return el("tr", {
      class: `state-${m.state.split(" ")[0]}${i === selected ? " selected" : ""}${badge ? ` ${badge.classList[1]}` : ""}`,
      "aria-selected": i === selected ? "true" : "false",
      "data-id": m.id,
      onclick: onPick ? () => onPick(i) : null,
    }, el("td", { text: m.from || "" }), el("td", { text: m.subject || "" }),
  el("td", { text: m.tier || "" }), el("td", { class: m.sla !== null && m.sla < obs.now ? "overdue" : "", text: slaText(m.sla, obs.now),
      "data-minutes": m.sla === null || m.sla === undefined ? null : m.sla - obs.now }),
    el("td", { class: "state" }, m.state, badge ? " " : null, badge));
  }));
  return items;
}

function renderMessages(list, title) {
  if (!list || !list.length) return null;
  return el("section", {}, el("h5", { text: title }), ...list.map((m) => el("blockquote", {},
    el("p", { class: "muted", text: [m.sender || m.kind, m.minute !== undefined ? `minute ${m.minute}` : null,
      m.minutes_ago !== undefined ? `${minutesText(m.minutes_ago)} before` : null].filter(Boolean).join(" · ") }),
    el("p", { class: "body", text: typeof m === "string" ? m : (m.body || m.text || JSON.stringify(m)) }))));
}

export function renderReading(target, entry) {
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
    renderMessages(target.id === "reading-pane" ? sentByYou(entry) : [], "Sent by you") || renderMessages((m.responses_sent || []).map((r) => ({ kind: "sent", body: typeof r === "string" ? r : JSON.stringify(r) })), "Responses sent"),
    m.draft_reply ? renderMessages([{ kind: "draft", body: m.draft_reply }], "Draft reply") : null,
    m.tags && m.tags.length ? el("p", { text: `Tags: ${m.tags.join(", ")}` }) : null,
    m.priority || m.queue ? el("p", { text: `Priority ${m.priority || "–"} · queue ${m.queue || "–"}${m.sentiment ? " · " + m.sentiment : ""}` }) : null,
    renderDecision((state.decisions || {})[entry.id]),
  );
}

// The player's own replies, information requests and reasons for this mail, whole, from the
// actions sent (a refused one sent nothing).
function sentByYou(entry) {
  if (!state.obs || !state.transcript.length) return [];
  const templates = (state.obs.vocabulary || {}).templates || {};
  const mine = (a) => a.email_id === entry.id || a.ticket_id === entry.id
    || (state.obs.mode === "ticket" && !a.email_id && !a.ticket_id && entry.id === state.obs.ticket_id);
  const said = (a) => {
    if (a.action_type === "request_info") return ["Information requested", a.value];
    if (a.action_type === "draft_reply") return ["Reply drafted", a.value];
    if (a.action_type === "respond_ticket") {
      const text = [templates[a.response_template], a.response_text].filter(Boolean).join("\n\n");
      return [`Reply sent (template ${a.response_template})`, text];
    }
    if (a.reply_draft) return ["Reply drafted", a.reply_draft];
    if (a.reason) return ["Reason given", a.reason];
    return null;
  };
  return state.transcript.filter((r) => !r.error && mine(r.action) && said(r.action) && said(r.action)[1])
    .map((r) => ({ sender: `step ${r.step} · ${said(r.action)[0]}`, body: said(r.action)[1] }));
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

export async function loadDecisions() {
  const answer = await api("/state");
  state.decisions = answer.ok ? answer.body.tickets || {} : {};
}

function renderEvents(target, events) {
  if (!events || !events.length) { put(target, ); return; }
  put(target, el("h4", { text: "Recent events" }), el("ul", {},
    ...events.map((e) => el("li", { text: `minute ${e.minute} · ${e.kind}${e.ticket_id ? " · " + e.ticket_id : ""}${e.detail ? " – " + e.detail : ""}` }))));
}

export function pick(index) {
  const items = mailItems(state.obs);
  if (!items.length) return;
  state.selected = Math.max(0, Math.min(items.length - 1, index));
  renderEpisode();
  preselectId();
}

export function renderEpisode() {
  const obs = state.obs;
  renderStatus($("#status-bar"), obs, sessionText());
  markRead(mailItems(obs)[state.selected]); // open in the reading pane: read
  const items = renderMailList($("#mail-list tbody"), obs, state.selected, pick);
  renderReading($("#reading-pane"), items[state.selected]);
  renderEvents($("#events"), obs.recent_events);
  const ended = obs.done || state.closed;
  $("#act-button").disabled = ended || state.stepping; // locked while a step is in flight
  $("#action-type").disabled = ended;
  if (!$("#action-type").options.length || $("#action-type").dataset.task !== obs.task_id) buildActionTypes();
  else refreshIdOptions();
}

export function toggleSlaSort() {
  const chosen = state.obs ? mailItems(state.obs)[state.selected] : null;
  state.bySla = !state.bySla;
  $("#sort-sla").setAttribute("aria-pressed", String(state.bySla));
  if (!state.obs) return;
  const items = mailItems(state.obs);
  state.selected = Math.max(0, chosen ? items.findIndex((m) => m.id === chosen.id) : 0);
  renderEpisode();
  announce(state.bySla ? "Inbox sorted by SLA deadline" : "Inbox in arrival order");
}
