// The policy beside the inbox: a small Markdown renderer, apart because it knows nothing of
// episodes.

import { el, put } from "./dom.js";

// The policy is Markdown: headings, lists, tables and paragraphs are enough to read it.
export function renderPolicy(target, text) {
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
