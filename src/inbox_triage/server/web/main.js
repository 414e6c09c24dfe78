// The inbox-triage console: plain ES modules, no build step, nothing fetched from elsewhere.
// Play goes through the server's HTTP session routes with one session per tab; replays come
// from /web/api/replay, which re-simulates recorded actions on the server. This module routes
// between the views, reads the keys, wires the listeners and starts the page.

import { $, announce, busy, el, put } from "./dom.js";
import { state } from "./state.js";
import { mailItems } from "./mail.js";
import { buildActionFields } from "./form.js";
import { onSearch, pick, toggleSlaSort } from "./inbox.js";
import { checkIdle, leaving, noteActivity, saveDraft } from "./session.js";
import { takeAction } from "./episode.js";
import { acceptOffer, comeBack, declineOffer } from "./recover.js";
import { answerReplace, keepSetup, loadSetup, onModeChange, onTaskChange, startEpisode } from "./setup.js";
import { compareTicked, episodeHash, loadRuns, selectRunRow, sortableRuns } from "./runs.js";
import { openReplay, showStep, typedStep } from "./replay.js";

// The parts of "#/view/a/b", decoded; a part that does not decode ("%E0%A4") makes the
// address not well-formed (null parts), said by the view rather than thrown.
function route() {
  const [hash, query] = (location.hash || "#/play").split("?");
  let parts;
  try {
    parts = hash.slice(2).split("/").map(decodeURIComponent);
  } catch (_) {
    parts = [hash.slice(2).split("/")[0], null];
  }
  const step = new URLSearchParams(query || "").get("step"); // #/replay/RUN/KEY?step=N
  const view = parts[0] === "replay" || parts[0] === "compare" ? "replay" : (parts[0] === "runs" ? "runs" : "play");
  for (const name of ["play", "runs", "replay"]) $(`#${name}-view`).hidden = name !== view;
  $("#nav-play").toggleAttribute("aria-current", view === "play");
  $("#nav-runs").toggleAttribute("aria-current", view !== "play");
  if (view === "runs") loadRuns();
  if (view === "replay") openReplay(parts.includes(null) ? null : parts.slice(1), step);
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

async function main() {
  $("#setup-form").addEventListener("submit", busy(startEpisode));
  $("#setup-form").addEventListener("change", keepSetup); // after the handlers below have run
  $("#setup-form").addEventListener("input", keepSetup);
  $("#setup-mode").addEventListener("change", onModeChange);
  $("#setup-task").addEventListener("change", onTaskChange);
  $("#setup-difficulty").addEventListener("change", onTaskChange);
  $("#action-form").addEventListener("submit", busy(takeAction));
  $("#action-type").addEventListener("change", () => { buildActionFields(); saveDraft(); });
  $("#action-form").addEventListener("keydown", (e) => { // Ctrl+Enter (⌘+Enter) sends the action
    if (e.key !== "Enter" || !(e.ctrlKey || e.metaKey)) return;
    e.preventDefault();
    if (!$("#act-button").disabled) $("#action-form").requestSubmit();
  });
  $("#action-form").addEventListener("input", saveDraft);
  $("#action-form").addEventListener("change", saveDraft);
  $("#filter-form").addEventListener("submit", busy(loadRuns));
  $("#mail-search").addEventListener("input", onSearch);
  $("#mail-search").addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    $("#mail-search").value = "";
    onSearch();
    $("#mail-list").focus();
  });
  $("#replace-yes").addEventListener("click", () => answerReplace(true));
  $("#replace-no").addEventListener("click", () => answerReplace(false));
  $("#recover-yes").addEventListener("click", busy(acceptOffer));
  $("#recover-no").addEventListener("click", declineOffer);
  $("#compare-button").addEventListener("click", compareTicked);
  $("#replay-first").addEventListener("click", () => showStep(0));
  $("#replay-back").addEventListener("click", () => showStep(state.replay.step - 1));
  $("#replay-forward").addEventListener("click", () => showStep(state.replay.step + 1));
  $("#replay-last").addEventListener("click", () => showStep(state.replay.total));
  $("#replay-step").addEventListener("change", (e) => typedStep(e.target.value));
  $("#replay-step").addEventListener("keydown", (e) => { if (e.key === "Enter") typedStep(e.target.value); });
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
  await comeBack();
  const idle = state.setup && state.setup.idle_timeout_s;
  if (idle) {
    for (const kind of ["keydown", "input", "pointerdown", "wheel"]) document.addEventListener(kind, noteActivity, true);
    document.addEventListener("scroll", noteActivity, true); // the page's or any pane's
    setInterval(checkIdle, 1000 * Math.max(1, Math.min(30, idle / 4)));
  }
  document.body.dataset.ready = "yes";
}

main();
