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

export function notice(text) {
  const box = $("#notice");
  box.textContent = text || "";
  box.hidden = !text;
}

export const fmt = (x, digits = 3) => (typeof x === "number" ? x.toFixed(digits) : "–");

export function slaText(deadline, now) {
  if (deadline === null || deadline === undefined) return "–";
  const left = deadline - now;
  return left >= 0 ? `${left} min` : `${-left} min over`;
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
