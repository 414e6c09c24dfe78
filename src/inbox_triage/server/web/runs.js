// The runs list: evaluated episodes filtered, sorted by any column, opened for replay, and two
// ticked for comparison.

import { $, el, fillSelect, fmt, notice, put } from "./dom.js";
import { api, describeError, state } from "./state.js";

const ALL = { "": "all" }; // each filter's first choice, which filters nothing

export function episodeHash(row) {
  return `#/replay/${encodeURIComponent(row.run)}/${encodeURIComponent(row.key)}`;
}

export async function loadRuns(event) {
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
    notice(`Filter refused: ${e.text}`);
    $("#runs-count").textContent = "No episodes listed: the filter was refused.";
    state.runsRows = [];
    renderRunsTable();
    const input = { min_grade: "#filter-min", max_grade: "#filter-max", run: "#filter-run", agent: "#filter-agent", task: "#filter-task" }[e.field];
    if (input) { $(input).setAttribute("aria-invalid", "true"); $(input).focus(); }
    const runs = answer.body && answer.body.error && answer.body.error.allowed;
    if (e.field === "run" && Array.isArray(runs)) { // a run deleted meanwhile: offer what is left
      fillSelect($("#filter-run"), ["", ...runs], ALL);
    }
    return;
  }
  notice("");
  const data = answer.body;
  $("#runs-empty").hidden = data.runs.length > 0;
  for (const [sel, values] of [["#filter-run", data.runs], ["#filter-agent", data.agents], ["#filter-task", data.tasks]]) {
    const select = $(sel);
    const before = select.value;
    fillSelect(select, ["", ...values], ALL);
    select.value = values.includes(before) ? before : "";
  }
  state.runsRows = data.episodes;
  state.runsSelected = Math.min(state.runsSelected, Math.max(0, data.episodes.length - 1));
  $("#runs-count").textContent = data.total > data.episodes.length
    ? `${data.total} episodes match; the first ${data.episodes.length} are shown.`
    : `${data.total} episodes match.`;
  renderRunsTable();
}

// The runs list sorts by any column: a header is a button; again reverses the order.
const SORT_KEYS = [null, "run", "agent", "task", "seed", "split", "grade", "steps", null];
export function sortableRuns() {
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

export function selectRunRow(index) {
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

export function compareTicked() {
  const [a, b] = tickedRows();
  location.hash = `#/compare/${[a.run, a.key, b.run, b.key].map(encodeURIComponent).join("/")}`;
}
