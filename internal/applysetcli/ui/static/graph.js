// kubectl applyset ui: draws a set's members (the JSON of #graph-data) as an SVG
// graph in #graph-canvas, laid out by the vendored dagre (static/vendor/dagre).
// Groups are columns in apply order, depends-on edges are arrows, and members that
// are not proven sit in a column of their own, with no edges.
"use strict";

// drawGraph draws the graph on load, and again when a live update replaced it.
function drawGraph() {
  const canvas = document.getElementById("graph-canvas");
  const source = document.getElementById("graph-data");
  if (!canvas || !source || typeof dagre === "undefined") {
    return;
  }
  const data = JSON.parse(source.textContent);
  const nodes = data.nodes || [];
  if (nodes.length === 0) {
    return;
  }

  const SVG = "http://www.w3.org/2000/svg";
  const HEALTH = { Current: "current", InProgress: "progress", Failed: "failed", Unknown: "unknown" };
  const PAD = 12; // inside a node box
  const LINE = 18; // between a node's two text lines
  const HEAD = 32; // room above the columns for their labels
  const MAX_LABEL = 40; // characters; the <title> keeps the whole label

  function el(name, attrs, parent) {
    const e = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) {
      e.setAttribute(k, v);
    }
    if (parent) {
      parent.appendChild(e);
    }
    return e;
  }
  function text(content, attrs, parent) {
    const t = el("text", attrs, parent);
    t.textContent = content;
    return t;
  }

  // Columns follow the apply order; a group only the nodes name still gets one.
  const groups = (data.groups || []).slice();
  for (const n of nodes) {
    if (!n.foreign && !groups.some((g) => g.index === n.group)) {
      groups.push({ index: n.group, label: "Group " + (n.group + 1) });
    }
  }
  groups.sort((a, b) => a.index - b.index);
  const column = new Map(groups.map((g, i) => [g.index, i]));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const foreign = nodes.filter((n) => n.foreign);

  const svg = el("svg", { class: "graph", role: "group" }, canvas);
  const plural = (n, word) => n + " " + word + (n === 1 ? "" : "s");
  const unproven = plural(foreign.length, "object") + " whose membership is not proven";
  svg.setAttribute("aria-label", groups.length === 0 ? unproven :
    "Members in " + plural(groups.length, "apply group") + (foreign.length ? ", and " + unproven : ""));
  const defs = el("defs", {}, svg);
  const marker = el("marker", {
    id: "graph-arrow", viewBox: "0 0 10 10", refX: 10, refY: 5,
    markerWidth: 8, markerHeight: 8, orient: "auto-start-reverse",
  }, defs);
  el("path", { d: "M0,0 L10,5 L0,10 z", class: "graph-arrowhead" }, marker);
  // Areas and edges first, so that nodes are painted (and focused) above them.
  const areaLayer = el("g", {}, svg);
  const edgeLayer = el("g", { "aria-hidden": "true" }, svg);
  const nodeLayer = el("g", {}, svg);

  // Draw each node's text first: its box is sized to what the browser measures.
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "LR", nodesep: 16, ranksep: 56, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  const drawn = new Map();
  for (const n of nodes) {
    const health = n.health || "Unknown";
    const full = String(n.label || n.id);
    const label = full.length > MAX_LABEL ? full.slice(0, MAX_LABEL - 1) + "…" : full;
    const count = n.count > 1 ? n.count + " × " : "";
    const title = count + full + ": " + health + (n.message ? " — " + n.message : "") + (n.owns ? "; owns " + n.owns : "");
    // The link's name is the whole title, not the cut label and health word.
    const a = el("a", { href: n.href || "#", "aria-label": title }, nodeLayer);
    const box = el("g", {
      class: "node health-" + (HEALTH[health] || "unknown") + (n.foreign ? " foreign" : ""),
    }, a);
    el("title", {}, box).textContent = title;
    const rect = el("rect", { rx: 4, ry: 4 }, box);
    const t1 = text(count + label, { class: "node-label" }, box);
    const t2 = text(health, { class: "node-health" }, box);
    // What the member owns (ReplicaSets, Pods) is folded under it as a third line.
    const t3 = n.owns ? text("owns " + n.owns, { class: "node-owns" }, box) : null;
    const w = Math.max(measure(t1, count + label, 7.6), measure(t2, health, 7.6), t3 ? measure(t3, "owns " + n.owns, 7) : 0);
    drawn.set(n.id, { rect, t1, t2, t3 });
    g.setNode(n.id, { width: Math.ceil(w) + 2 * PAD, height: (t3 ? 3 : 2) * LINE + 2 * PAD - 4 });
  }

  // Invisible anchors a0 -> a1 -> ... put column i one rank right of anchor i, so
  // groups are columns in apply order and the foreign nodes a column after them.
  // Anchor i+1 shares column i and is held above its nodes, which keeps columns
  // packed at the top instead of spread around the chain.
  const columns = groups.length + (foreign.length ? 1 : 0);
  const constraints = [];
  for (let i = 0; i <= columns; i++) {
    g.setNode("a" + i, { width: 0, height: 0 });
    if (i > 0) {
      g.setEdge("a" + (i - 1), "a" + i, { minlen: 1, weight: 10 });
    }
  }
  for (const n of nodes) {
    const col = n.foreign ? groups.length : column.get(n.group);
    g.setEdge("a" + col, n.id, { minlen: 1, weight: 10 });
    constraints.push({ left: "a" + (col + 1), right: n.id });
  }
  // A depends-on edge spans exactly its groups' distance, so it never moves a column.
  // Edges that do not go forward, or touch a foreign node, are left out of the layout;
  // the first are drawn straight below, the second not at all.
  const edges = (data.edges || []).filter((e) => {
    const from = byId.get(e.from), to = byId.get(e.to);
    return from && to && !from.foreign && !to.foreign && from !== to;
  });
  const laidOut = new Set();
  for (const e of edges) {
    const span = column.get(byId.get(e.to).group) - column.get(byId.get(e.from).group);
    if (span > 0 && !g.hasEdge(e.from, e.to)) {
      g.setEdge(e.from, e.to, { minlen: span, weight: 1 });
      laidOut.add(e);
    }
  }
  dagre.layout(g, { constraints });

  // Move everything down by HEAD, below the column labels.
  for (const n of nodes) {
    const d = drawn.get(n.id), p = g.node(n.id);
    const x = p.x - p.width / 2, y = p.y - p.height / 2 + HEAD;
    d.rect.setAttribute("x", x);
    d.rect.setAttribute("y", y);
    d.rect.setAttribute("width", p.width);
    d.rect.setAttribute("height", p.height);
    d.t1.setAttribute("x", x + PAD);
    d.t1.setAttribute("y", y + PAD + 12);
    d.t2.setAttribute("x", x + PAD);
    d.t2.setAttribute("y", y + PAD + 12 + LINE);
    if (d.t3) {
      d.t3.setAttribute("x", x + PAD);
      d.t3.setAttribute("y", y + PAD + 12 + 2 * LINE);
    }
  }
  for (const e of edges) {
    let points;
    if (laidOut.has(e)) {
      points = g.edge(e.from, e.to).points;
    } else {
      // From side to side across columns, from top to bottom within one.
      const a = g.node(e.from), b = g.node(e.to);
      const across = a.x !== b.x, sx = Math.sign(b.x - a.x), sy = b.y < a.y ? -1 : 1;
      points = across
        ? [{ x: a.x + sx * a.width / 2, y: a.y }, { x: b.x - sx * b.width / 2, y: b.y }]
        : [{ x: a.x, y: a.y + sy * a.height / 2 }, { x: b.x, y: b.y - sy * b.height / 2 }];
    }
    const d = points.map((p, i) => (i ? "L" : "M") + p.x + "," + (p.y + HEAD)).join(" ");
    el("path", { d, class: "graph-edge", "marker-end": "url(#graph-arrow)" }, edgeLayer);
  }

  // Column labels at the top: column i is where anchor i+1 lies. The picture spans
  // the nodes (not anchor a0's empty column) and labels wider than their column.
  const size = g.graph();
  let left = Math.min(...nodes.map((n) => g.node(n.id).x - g.node(n.id).width / 2)) - 8;
  let right = Math.max(...nodes.map((n) => g.node(n.id).x + g.node(n.id).width / 2)) + 8;
  function heading(label, x) {
    const t = text(label, { x, y: 20, class: "graph-group", "text-anchor": "middle" }, areaLayer);
    const half = measure(t, label, 8.4) / 2;
    left = Math.min(left, x - half - 4);
    right = Math.max(right, x + half + 4);
  }
  groups.forEach((grp, i) => heading(grp.label, g.node("a" + (i + 1)).x));
  if (foreign.length) {
    const boxes = foreign.map((n) => g.node(n.id));
    const x0 = Math.min(...boxes.map((b) => b.x - b.width / 2)) - 6;
    const x1 = Math.max(...boxes.map((b) => b.x + b.width / 2)) + 6;
    const y0 = Math.min(...boxes.map((b) => b.y - b.height / 2)) + HEAD - 6;
    const y1 = Math.max(...boxes.map((b) => b.y + b.height / 2)) + HEAD + 6;
    el("rect", { x: x0, y: y0, width: x1 - x0, height: y1 - y0, rx: 6, class: "graph-foreign-area" }, areaLayer);
    heading("Not proven members", (x0 + x1) / 2);
  }

  left = Math.floor(left);
  const width = Math.ceil(right) - left, height = Math.ceil(size.height + HEAD);
  svg.setAttribute("viewBox", left + " 0 " + width + " " + height);
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);

  // measure returns a text's width as drawn, or an estimate where nothing is drawn
  // (the figure is hidden).
  function measure(t, content, perChar) {
    const w = t.getComputedTextLength();
    return w > 0 ? w : content.length * perChar;
  }
}

drawGraph();
document.addEventListener("applyset:updated", drawGraph);
