// Small DOM helpers every view uses: building nodes, the notice and the live region, number
// and SLA formats, and busy(), which marks the page busy and counts answers (tests wait on it).

export const $ = (sel) => document.querySelector(sel);

export function el(tag, attrs = {}, ...children) {
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
export function put(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

// The page's one notice; kind "ok" for good news (a recovered episode), else a warning.
export function notice(text, kind = "") {
  const box = $("#notice");
  box.textContent = text || "";
  box.hidden = !text;
  box.className = kind;
}

// A span of time as people say it: "45 s", "12 min", "3 h 5 min", "2 d 16 h".
export function minutesText(minutes) {
  const m = Math.round(Math.abs(minutes));
  if (m < 60) return `${m} min`;
  if (m < 24 * 60) return m % 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${m / 60} h`;
  const d = Math.floor(m / 1440), h = Math.floor((m % 1440) / 60);
  return h ? `${d} d ${h} h` : `${d} d`;
}

export function secondsText(seconds) {
  const s = Math.round(seconds);
  return s < 120 ? `${s} s` : minutesText(s / 60);
}

export const fmt = (x, digits = 3) => (typeof x === "number" ? x.toFixed(digits) : "–");

export function slaText(deadline, now) {
  if (deadline === null || deadline === undefined) return "–";
  const left = deadline - now;
  return left >= 0 ? minutesText(left) : `${minutesText(left)} over`;
}

export function fillSelect(select, values, labels = {}) {
  put(select, ...values.map((v) => el("option", { value: v, text: labels[v] || v })));
}

// Says something to a screen reader (a polite live region), for moves that change no focus.
export function announce(text) {
  $("#announce").textContent = text;
}

// Marks the page busy while an answer is awaited, and counts answers (what tests wait on).
export function busy(handler) {
  return async (event) => {
    document.body.dataset.busy = "yes";
    try { await handler(event); } finally {
      delete document.body.dataset.busy;
      document.body.dataset.answers = String(Number(document.body.dataset.answers || 0) + 1);
    }
  };
}
