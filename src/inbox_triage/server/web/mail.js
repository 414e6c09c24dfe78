// The mail of an observation as rows: one model for the inbox, the action form's id fields and
// replays, apart so that the inbox and the form both import it and neither imports the other.

import { state } from "./state.js";

// What the records say of a sender who is not a customer (generator v2's scenarios show the
// sender's role instead).
const KNOWN_AS = { colleague: "colleague", vendor: "known vendor", unknown: "not in our records" };

// The Tier column: a customer's tier, or what the inbox knows of anyone else.
function tierOf(m) {
  if (KNOWN_AS[m.sender_known_as]) return KNOWN_AS[m.sender_known_as];
  if (m.sender_role && m.sender_role !== "customer") return m.sender_role.replace("_", " ");
  return m.customer_tier;
}

// "premium customer", "colleague", "known vendor", "not in our records".
export function standing(m) {
  const tier = tierOf(m);
  return tier && tier === m.customer_tier ? `${tier} customer` : tier || "";
}

// One row per email or ticket, whatever the mode; in play, only what the search finds, in the
// order the player chose (a replay or compare shows every mail in arrival order).
export function mailItems(obs, play = true) {
  let items = listedMail(obs);
  if (!play) return items;
  if (state.search) items = items.filter((m) => matches(m, state.search));
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

export function listedMail(obs) {
  if (obs.mode === "triage") {
    const current = obs.current_email && obs.current_email.email_id;
    return (obs.inbox || []).map((m) => ({
      id: m.email_id, idField: "email_id", from: m.sender, subject: m.subject,
      tier: tierOf(m), sla: m.processed ? null : m.sla_deadline,
      state: m.processed ? "triaged" : (m.email_id === current ? "current" : "waiting"), item: m,
    }));
  }
  if (obs.mode === "inbox") {
    return (obs.tickets || []).map((t) => ({
      id: t.ticket_id, idField: "ticket_id", from: t.customer_name, subject: t.subject,
      tier: tierOf(t), sla: ["resolved", "escalated"].includes(t.status) ? null : t.sla_deadline,
      state: t.status, item: t,
    }));
  }
  const subject = obs.title || (obs.customer_message || "").split(/[.!?\n]/)[0].slice(0, 80);
  const parts = [obs.priority, obs.routed_team, ...(obs.tags || [])].filter(Boolean);
  return [{
    id: obs.ticket_id, idField: "ticket_id", from: obs.customer_name, subject,
    tier: tierOf(obs), sla: null, state: parts.length ? parts.join(" · ") : "new",
    item: {
      ticket_id: obs.ticket_id, customer_name: obs.customer_name, customer_tier: obs.customer_tier,
      customer_account: obs.customer_account, message: obs.customer_message,
      customer_messages: obs.customer_messages, draft_reply: obs.draft_reply,
      info_requested: obs.info_requested, tags: obs.tags,
    },
  }];
}
