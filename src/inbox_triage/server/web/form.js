// The action form: built from the episode's action schema and vocabulary, with the policy's
// length limits counted as the player writes and refusals marked on the field.

import { $, el, fillSelect, put } from "./dom.js";
import { humanError, state } from "./state.js";
import { listedMail, mailItems } from "./mail.js";

// What the episode's policy asks of free text (GET /web/api/limits: the page reads the
// episode's numbers), counted as the player writes: a summary's characters, a reply's words.
const words = (text) => (text.trim() ? text.trim().split(/\s+/).length : 0);
const chars = (text) => [...text].length; // as the server counts: code points, not UTF-16 units
const limit = (name, fallback) => (state.limits && state.limits[name]) || fallback;
const LIMITS = {
  summary: (t) => {
    const most = limit("summary_max_chars", 280);
    const n = chars(t);
    return `${n} of ${most} characters${n > most ? ": over the policy's limit" : ""}`;
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
export function tooLong(action) {
  const most = limit("text_max_chars", 8000);
  for (const [name, value] of Object.entries(action)) {
    if (typeof value === "string" && chars(value) > most) {
      return { field: name, message: `may be at most ${most} characters (it has ${chars(value)})` };
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
export function buildActionTypes() {
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

export function buildActionFields() {
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
export function preselectId() {
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

export function refreshIdOptions() {
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

export function actionFromForm() {
  const action = { action_type: $("#action-type").value };
  for (const input of $("#action-fields").querySelectorAll("input, select, textarea")) {
    if (input.type === "checkbox") { if (input.checked) action[input.name] = true; continue; }
    if (input.value !== "") action[input.name] = input.value;
  }
  return action;
}

export function showRefusal(e) {
  put($("#step-result"), el("p", { class: "refused", role: "alert" },
    el("strong", { text: "Refused: " }), e.text || humanError(e)),
  el("p", { class: "muted", text: "A refused action costs no step." }));
  markRefused(e.field);
}

// The refused field, marked and focused, so the player sees what to change.
export function markRefused(field) {
  for (const marked of document.querySelectorAll("#action-form [aria-invalid]")) marked.removeAttribute("aria-invalid");
  const input = $(`#field-${field}`) || (field === "action_type" ? $("#action-type") : null);
  if (!input) return;
  input.setAttribute("aria-invalid", "true");
  input.focus();
}

export function setFormOpen(open) {
  for (const control of $("#action-form").querySelectorAll("select, input, textarea, button")) {
    control.disabled = !open;
  }
}
