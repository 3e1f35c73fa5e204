/*
 * Interactive figure "allreduce-steps" for the post "NCCL Deep Dive: From P2P/CUMEM to torchrun Init".
 *
 * A ring and a double-binary-tree all-reduce over n GPUs (one per node), stepped message by
 * message: which GPU sends which piece of the buffer to which, what sum that piece holds, and
 * what every GPU holds after the step. The rules are those of examples/nccl_deep_dive/ring_sim.py
 * (runRing's chunk order; ncclGetDtree's two trees; one send and one receive per GPU per step,
 * tree messages scheduled lowest chunk first), computed here again. They are not a second model
 * to trust: ring_sim.py writes every scenario into allreduce-steps.json and the browser test
 * (tests/browser/test_ifig_allreduce_steps.py) drives this figure through all of them and compares.
 *
 * State for tests, on the <figure>: data-algo (ring | tree), data-n, data-k (chunks per tree),
 * data-step (0 = before the first message), data-steps, data-messages ("src>dst:unit:count" joined
 * by ";"), data-have (per GPU, the number of GPUs each piece sums, "," within a GPU, "|" between),
 * data-sent-max (most any GPU sends in all, as a fraction of the buffer S), data-busbw (bus
 * bandwidth over the port rate B, alpha = 0), data-ifig-ready.
 */
(function () {
  "use strict";

  var SVG_NS = "http://www.w3.org/2000/svg";
  var NS = [2, 3, 4, 5, 6, 7, 8];
  var KS = [1, 2, 4];

  /* ---------------------------------------------------------------- the model (ring_sim.py) */

  function ringChunk(r, n, j) {  // chunk of op j of ring_schedule(r, n), j < 2(n-1)
    var mod = function (x) { return ((x % n) + n) % n; };
    if (j === 0) return mod(r + n - 1);
    if (j < n - 1) return mod(r + n - (j + 1));
    if (j === n - 1) return r;
    return mod(r + n - (j - n + 1));
  }

  function btree(n, rank) {
    var bit = 1;
    while (bit < n && !(bit & rank)) bit <<= 1;
    if (rank === 0) return [-1, -1, n > 1 ? bit >> 1 : -1];
    var up = (rank ^ bit) | (bit << 1);
    if (up >= n) up = rank ^ bit;
    var lowbit = bit >> 1;
    var down0 = lowbit === 0 ? -1 : rank - lowbit;
    var down1 = lowbit === 0 ? -1 : rank + lowbit;
    while (down1 >= n) {
      down1 = lowbit === 0 ? -1 : rank + lowbit;
      lowbit >>= 1;
    }
    return [up, down0, down1];
  }

  function dtree(n, rank) {
    var back = function (x, f) { return x === -1 ? -1 : f(x); };
    var t1;
    if (n % 2 === 1) {
      t1 = btree(n, (rank - 1 + n) % n);
      return [btree(n, rank), t1.map(function (x) { return back(x, function (v) { return (v + 1) % n; }); })];
    }
    t1 = btree(n, n - 1 - rank);
    return [btree(n, rank), t1.map(function (x) { return back(x, function (v) { return n - 1 - v; }); })];
  }

  function popcount(x) { var c = 0; while (x) { c += x & 1; x >>>= 1; } return c; }

  function ringSteps(n) {
    var have = [];
    for (var r = 0; r < n; r++) { have.push([]); for (var u = 0; u < n; u++) have[r].push(1 << r); }
    var all = (1 << n) - 1, steps = [];
    for (var j = 0; j < 2 * (n - 1); j++) {
      var msgs = [];
      for (r = 0; r < n; r++) {
        var c = ringChunk(r, n, j);
        msgs.push({ src: r, dst: (r + 1) % n, unit: c, ranks: have[r][c], tree: -1 });
      }
      msgs.forEach(function (m) {
        have[m.dst][m.unit] = m.ranks === all ? all : (have[m.dst][m.unit] | m.ranks);
      });
      steps.push(msgs);
    }
    return steps;
  }

  function cmpKey(a, b) {
    for (var i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
    return a.length - b.length;
  }

  function treeSteps(n, k) {
    var trees = [0, 1].map(function (t) {
      var out = []; for (var r = 0; r < n; r++) out.push(dtree(n, r)[t]); return out;
    });
    var units = 2 * k, all = (1 << n) - 1;
    var kidsMask = function (t, r) {
      return trees[t][r].slice(1).reduce(function (acc, d) { return d === -1 ? acc : acc | (1 << d); }, 0);
    };
    var have = [], heard = [], sentUp = [], sentDown = [];
    for (var r = 0; r < n; r++) {
      have.push([]); heard.push([]); sentUp.push([]); sentDown.push([]);
      for (var u = 0; u < units; u++) { have[r].push(1 << r); heard[r].push(0); sentUp[r].push(false); sentDown[r].push(0); }
    }
    var done = function () {
      for (var r2 = 0; r2 < n; r2++) for (var u2 = 0; u2 < units; u2++) if (have[r2][u2] !== all) return false;
      return true;
    };
    var steps = [];
    while (!done()) {
      var ready = [];
      for (r = 0; r < n; r++) {
        for (u = 0; u < units; u++) {
          var t = Math.floor(u / k), c = u % k, node = trees[t][r], kids = kidsMask(t, r);
          if (node[0] !== -1 && !sentUp[r][u] && heard[r][u] === kids) {
            ready.push({ key: [c, t, 0, r], m: { src: r, dst: node[0], unit: u, ranks: have[r][u], tree: t } });
          }
          if (have[r][u] === all) {
            node.slice(1).forEach(function (d) {
              if (d !== -1 && !(sentDown[r][u] & (1 << d))) {
                ready.push({ key: [c, t, 1, r, d], m: { src: r, dst: d, unit: u, ranks: all, tree: t } });
              }
            });
          }
        }
      }
      ready.sort(function (a, b) { return cmpKey(a.key, b.key); });
      var busyOut = 0, busyIn = 0, msgs = [];
      ready.forEach(function (x) {
        if (!(busyOut & (1 << x.m.src)) && !(busyIn & (1 << x.m.dst))) {
          busyOut |= 1 << x.m.src; busyIn |= 1 << x.m.dst; msgs.push(x.m);
        }
      });
      msgs.forEach(function (m) {
        if (m.ranks === all && trees[m.tree][m.dst][0] === m.src) {
          have[m.dst][m.unit] = all;
          sentDown[m.src][m.unit] |= 1 << m.dst;
        } else {
          have[m.dst][m.unit] |= m.ranks;
          heard[m.dst][m.unit] |= 1 << m.src;
          sentUp[m.src][m.unit] = true;
        }
      });
      for (r = 0; r < n; r++) {
        for (u = 0; u < units; u++) {
          var tt = Math.floor(u / k);
          if (trees[tt][r][0] === -1 && heard[r][u] === kidsMask(tt, r)) have[r][u] = all;
        }
      }
      if (!msgs.length) throw new Error("tree schedule stuck");
      steps.push(msgs);
    }
    return { steps: steps, trees: trees };
  }

  function gcd(a, b) { while (b) { var t = b; b = a % b; a = t; } return a; }

  /* Everything the figure shows for one scenario, once per control change. */
  function scenario(algo, n, k) {
    var s = algo === "ring" ? { steps: ringSteps(n), trees: null } : treeSteps(n, k);
    var units = algo === "ring" ? n : 2 * k;
    var mDen = algo === "ring" ? n : 2 * k;  // message size S / mDen
    var sends = []; for (var r = 0; r < n; r++) sends.push(0);
    var counts = [], have = [];
    for (r = 0; r < n; r++) { have.push([]); for (var u = 0; u < units; u++) have[r].push(1); }
    counts.push(have.map(function (row) { return row.slice(); }));
    s.steps.forEach(function (msgs) {
      msgs.forEach(function (m) {
        sends[m.src] += 1;
        var c = popcount(m.ranks);
        have[m.dst][m.unit] = c === n ? n : have[m.dst][m.unit] + c;
      });
      counts.push(have.map(function (row) { return row.slice(); }));
    });
    var most = Math.max.apply(null, sends), g = gcd(most, mDen);
    var sentMax = mDen / g === 1 ? String(most / g) : (most / g) + "/" + (mDen / g);
    var algbw = mDen / s.steps.length;  // S / (steps * S/mDen) with B = 1
    return { algo: algo, n: n, k: k, units: units, steps: s.steps, trees: s.trees, have: counts,
             sentMax: sentMax, busbw: algbw * 2 * (n - 1) / n };
  }

  /* ---------------------------------------------------------------- drawing */

  function el(name, props, text) {
    var node = document.createElement(name);
    Object.keys(props || {}).forEach(function (key) { node.setAttribute(key, props[key]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function svgEl(name, props, text) {
    var node = document.createElementNS(SVG_NS, name);
    Object.keys(props || {}).forEach(function (key) { node.setAttribute(key, props[key]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function unitName(sc, u) {
    if (sc.algo === "ring") return "c" + u;
    return (u < sc.k ? "A" : "B") + (u % sc.k);
  }

  function edge(svg, id, x1, y1, x2, y2, cx, cy, active) {
    var path = svgEl("path", {
      d: "M" + x1.toFixed(1) + "," + y1.toFixed(1) + " Q" + cx.toFixed(1) + "," + cy.toFixed(1) + " " +
        x2.toFixed(1) + "," + y2.toFixed(1),
      "class": active ? "fig-line-accent" : "fig-line-dashed" });
    if (active) path.setAttribute("marker-end", "url(#" + id + "-arrow)");
    svg.appendChild(path);
  }

  function nodeCircle(svg, x, y, r, label, cls) {
    svg.appendChild(svgEl("circle", { cx: x, cy: y, r: r, "class": cls }));
    svg.appendChild(svgEl("text", { x: x, y: y + 4.5, "text-anchor": "middle", "class": "fig-text" }, label));
  }

  function shorten(x1, y1, x2, y2, by) {  // move both ends of a segment inwards by `by`
    var dx = x2 - x1, dy = y2 - y1, len = Math.hypot(dx, dy) || 1;
    return [x1 + dx * by / len, y1 + dy * by / len, x2 - dx * by / len, y2 - dy * by / len];
  }

  function drawRing(svg, id, sc, msgs, top) {
    var n = sc.n, cx = 180, cy = top + 146, R = 96, rn = 17;
    var pos = [];
    for (var i = 0; i < n; i++) {
      var a = -Math.PI / 2 + 2 * Math.PI * i / n;
      pos.push([cx + R * Math.cos(a), cy + R * Math.sin(a), a]);
    }
    for (i = 0; i < n; i++) {
      var j = (i + 1) % n, mid = pos[i][2] + Math.PI / n;
      var bend = n === 2 ? 60 : 16;
      var qx = cx + (R + bend) * Math.cos(mid), qy = cy + (R + bend) * Math.sin(mid);
      var s1 = shorten(pos[i][0], pos[i][1], qx, qy, rn + 2), s2 = shorten(qx, qy, pos[j][0], pos[j][1], rn + 4);
      var m = msgs.filter(function (x) { return x.src === i; })[0];
      edge(svg, id, s1[0], s1[1], s2[2], s2[3], qx, qy, !!m);
      if (m) {
        var lx = cx + (R + bend + 20) * Math.cos(mid), ly = cy + (R + bend + 20) * Math.sin(mid);
        var c = popcount(m.ranks);
        svg.appendChild(svgEl("text", { x: lx.toFixed(1), y: (ly + 4).toFixed(1), "text-anchor": "middle",
          "class": "fig-mono", "font-weight": c === n ? "bold" : "normal" }, unitName(sc, m.unit) + " \u03a3" + c));
      }
    }
    pos.forEach(function (p, r) { nodeCircle(svg, p[0], p[1], rn, String(r), "fig-box"); });
    return top + 292;
  }

  function drawTrees(svg, id, sc, msgs, top) {
    var n = sc.n, rn = 12;
    [0, 1].forEach(function (t) {
      var x0 = t === 0 ? 6 : 186, w = 168, parent = sc.trees[t].map(function (x) { return x[0]; });
      var depth = parent.map(function (p, r) { var d = 0, q = r; while (parent[q] !== -1) { q = parent[q]; d++; } return d; });
      var maxD = Math.max.apply(null, depth), rows = [];
      for (var d = 0; d <= maxD; d++) rows.push([]);
      depth.forEach(function (d2, r) { rows[d2].push(r); });
      var pos = {};
      rows.forEach(function (row, d3) {
        row.forEach(function (r, i) {
          pos[r] = [x0 + w * (i + 1) / (row.length + 1), top + 44 + d3 * (maxD > 3 ? 40 : 48)];
        });
      });
      svg.appendChild(svgEl("text", { x: x0 + w / 2, y: top + 16, "text-anchor": "middle", "class": "fig-text" },
        "tree " + t + ": half " + (t === 0 ? "A" : "B")));
      parent.forEach(function (p, r) {
        if (p === -1) return;
        var up = msgs.filter(function (m) { return m.tree === t && m.src === r && m.dst === p; })[0];
        var down = msgs.filter(function (m) { return m.tree === t && m.src === p && m.dst === r; })[0];
        var a = up ? pos[r] : pos[p], b = up ? pos[p] : pos[r];
        var s = shorten(a[0], a[1], b[0], b[1], rn + 3);
        edge(svg, id, s[0], s[1], s[2], s[3], (s[0] + s[2]) / 2, (s[1] + s[3]) / 2, !!(up || down));
        var m = up || down;
        if (m) {
          var mx = (pos[r][0] + pos[p][0]) / 2, my = (pos[r][1] + pos[p][1]) / 2;
          var right = pos[r][0] >= pos[p][0];
          svg.appendChild(svgEl("text", { x: (mx + (right ? 5 : -5)).toFixed(1), y: (my - 2).toFixed(1),
            "text-anchor": right ? "start" : "end", "class": "fig-mono",
            "font-weight": down ? "bold" : "normal" }, unitName(sc, m.unit) + (up ? "\u2191" : "\u2193")));
        }
      });
      Object.keys(pos).forEach(function (r) { nodeCircle(svg, pos[r][0], pos[r][1], rn, r, "fig-box"); });
    });
    return top + 236;
  }

  function drawGrid(svg, sc, step, msgs, top) {
    var n = sc.n, units = sc.units, left = 64, cw = Math.min(36, (354 - left) / units), ch = 21;
    var have = sc.have[step];
    var fresh = {};
    msgs.forEach(function (m) { fresh[m.dst + ":" + m.unit] = true; });
    svg.appendChild(svgEl("text", { x: 6, y: top + 14, "class": "fig-text" },
      "What each GPU holds: \u03a3k = sum of k GPUs"));
    for (var u = 0; u < units; u++) {
      svg.appendChild(svgEl("text", { x: left + u * cw + cw / 2, y: top + 34, "text-anchor": "middle",
        "class": "fig-mono" }, unitName(sc, u)));
    }
    for (var r = 0; r < n; r++) {
      var y = top + 40 + r * ch;
      svg.appendChild(svgEl("text", { x: 6, y: y + 15, "class": "fig-text" }, "GPU " + r));
      for (u = 0; u < units; u++) {
        var c = have[r][u];
        var cls = fresh[r + ":" + u] ? "fig-box-accent" : (c === n ? "fig-box-ok" : (c > 1 ? "fig-box-primary" : "fig-box"));
        svg.appendChild(svgEl("rect", { x: left + u * cw + 1, y: y + 1, width: cw - 2, height: ch - 2, rx: 3, "class": cls }));
        svg.appendChild(svgEl("text", { x: left + u * cw + cw / 2, y: y + 15, "text-anchor": "middle",
          "class": "fig-mono", "font-weight": c === n ? "bold" : "normal" }, String(c)));
      }
    }
    return top + 44 + n * ch;
  }

  function messageText(sc, m) {
    var c = popcount(m.ranks), what = unitName(sc, m.unit) + ", sum of " + c + " GPU" + (c > 1 ? "s" : "");
    if (sc.algo === "ring") return "GPU " + m.src + " \u2192 " + m.dst + ": " + what + (c === sc.n ? " (final, copied)" : " (reduced)");
    return "GPU " + m.src + " \u2192 " + m.dst + ": tree " + m.tree + ", " + what +
      (c === sc.n ? " (down, final)" : " (up, reduced)");
  }

  function init(root) {
    if (root.getAttribute("data-ifig-ready") === "true") return;
    var id = root.id || "allreduce-steps";
    var state = { algo: "ring", n: 4, k: 1, step: 0 };
    var sc = scenario(state.algo, state.n, state.k);

    var hover = "--md-accent-fg-color: var(--md-primary-fg-color--dark)";
    var outlined = "--md-primary-fg-color: var(--md-typeset-a-color); " + hover;
    function button(label, text, primary) {
      return el("button", { type: "button", "class": primary ? "md-button md-button--primary" : "md-button",
        style: primary ? hover : outlined, "aria-label": label }, text);
    }
    var b = {
      ring: button("Ring", "Ring"), tree: button("Tree", "Tree"),
      fewer: button("Fewer GPUs", "\u2212"), more: button("More GPUs", "+"),
      kLess: button("Fewer chunks per tree", "\u2212"), kMore: button("More chunks per tree", "+"),
      prev: button("Previous step", "\u25c0 Previous"), next: button("Next step", "Next \u25b6", true),
      reset: button("Reset to step 0", "Reset")
    };
    var nOut = el("span", { "class": "ifig-label" }), kOut = el("span", { "class": "ifig-label" });
    var rowAlgo = el("div", { "class": "ifig-controls", role: "group", "aria-label": "Algorithm" });
    rowAlgo.appendChild(b.ring); rowAlgo.appendChild(b.tree);
    var rowSize = el("div", { "class": "ifig-controls", role: "group", "aria-label": "Number of GPUs" });
    [b.fewer, nOut, b.more].forEach(function (x) { rowSize.appendChild(x); });
    var rowK = el("div", { "class": "ifig-controls", role: "group", "aria-label": "Chunks per tree" });
    [b.kLess, kOut, b.kMore].forEach(function (x) { rowK.appendChild(x); });
    var rowStep = el("div", { "class": "ifig-controls", role: "group", "aria-label": "Step through the messages" });
    [b.prev, b.next, b.reset].forEach(function (x) { rowStep.appendChild(x); });
    var status = el("p", { "class": "ifig-readout", role: "status", "aria-live": "polite" });
    var cost = el("p", { "class": "ifig-readout" });
    var svg = svgEl("svg", { "class": "fig-svg", role: "img", style: "max-width: 26rem; margin: 0 auto; display: block",
      "aria-labelledby": id + "-live-title " + id + "-live-desc" });
    var list = el("ul", { "aria-label": "Messages in this step", style: "text-align: left" });

    var ui = el("div", { "class": "ifig-ui" });
    [rowAlgo, rowSize, rowK, rowStep, status, svg, list, cost].forEach(function (x) { ui.appendChild(x); });
    var fallback = root.querySelector(".ifig-static");
    if (fallback) fallback.hidden = true;
    root.insertBefore(ui, root.querySelector("figcaption"));

    function render() {
      var msgs = state.step === 0 ? [] : sc.steps[state.step - 1];
      var total = sc.steps.length;
      while (svg.lastChild) svg.removeChild(svg.lastChild);
      svg.appendChild(svgEl("title", { id: id + "-live-title" },
        (sc.algo === "ring" ? "Ring" : "Double binary tree") + " all-reduce over " + sc.n + " GPUs, step " + state.step));
      svg.appendChild(svgEl("desc", { id: id + "-live-desc" },
        "The GPUs and the links that carry a message in this step, then a grid of how many GPUs' inputs " +
        "each GPU's copy of each piece of the buffer sums."));
      var defs = svgEl("defs");
      var marker = svgEl("marker", { id: id + "-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5,
        markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
      marker.appendChild(svgEl("path", { "class": "fig-arrow", d: "M0,0 L10,5 L0,10 z" }));
      defs.appendChild(marker);
      svg.appendChild(defs);
      var y = sc.algo === "ring" ? drawRing(svg, id, sc, msgs, 0) : drawTrees(svg, id, sc, msgs, 0);
      y = drawGrid(svg, sc, state.step, msgs, y);
      svg.setAttribute("viewBox", "0 0 360 " + Math.ceil(y + 4));

      while (list.lastChild) list.removeChild(list.lastChild);
      msgs.forEach(function (m) { list.appendChild(el("li", {}, messageText(sc, m))); });
      var phase = "";
      if (state.step === 0) phase = "Before the first message: every GPU holds only its own input.";
      else if (state.step === total) phase = "Last step: every GPU now holds the whole sum.";
      else if (sc.algo === "ring") phase = state.step < sc.n ? "Reduce-scatter half: partial sums move on." : "All-gather half: final chunks are copied on.";
      else phase = "Partial sums go up each tree, final ones come down.";
      status.textContent = "Step " + state.step + " of " + total + ". " + phase;
      nOut.textContent = sc.n + " GPUs";
      kOut.textContent = sc.algo === "ring" ? "1 chunk per GPU" : sc.k + " chunk" + (sc.k > 1 ? "s" : "") + " per tree";
      cost.textContent = "Model, " + total + " steps of messages of S/" + (sc.algo === "ring" ? sc.n : 2 * sc.k) +
        ". The busiest GPU sends " + sc.sentMax + "\u00b7S. Bus bandwidth (\u03b1 = 0): " +
        sc.busbw.toFixed(3) + "\u00b7B. With a per-message cost \u03b1, the " + total + " steps also cost " + total + "\u03b1.";

      b.ring.setAttribute("aria-pressed", String(sc.algo === "ring"));
      b.tree.setAttribute("aria-pressed", String(sc.algo === "tree"));
      b.fewer.disabled = sc.n === NS[0]; b.more.disabled = sc.n === NS[NS.length - 1];
      b.kLess.disabled = sc.algo === "ring" || sc.k === KS[0];
      b.kMore.disabled = sc.algo === "ring" || sc.k === KS[KS.length - 1];
      b.prev.disabled = state.step === 0; b.reset.disabled = state.step === 0;
      b.next.disabled = state.step === total;

      root.setAttribute("data-algo", sc.algo);
      root.setAttribute("data-n", String(sc.n));
      root.setAttribute("data-k", String(sc.k));
      root.setAttribute("data-step", String(state.step));
      root.setAttribute("data-steps", String(total));
      root.setAttribute("data-messages", msgs.map(function (m) {
        return m.src + ">" + m.dst + ":" + m.unit + ":" + popcount(m.ranks);
      }).join(";"));
      root.setAttribute("data-have", sc.have[state.step].map(function (row) { return row.join(","); }).join("|"));
      root.setAttribute("data-sent-max", sc.sentMax);
      root.setAttribute("data-busbw", String(sc.busbw));
    }

    function change(algo, n, k) {
      state.algo = algo; state.n = n; state.k = k; state.step = 0;
      sc = scenario(algo, n, algo === "ring" ? 1 : k);
      render();
    }
    function go(i) { state.step = Math.max(0, Math.min(sc.steps.length, i)); render(); }
    function stepK(d) { var i = KS.indexOf(state.k) + d; if (i >= 0 && i < KS.length) change(state.algo, state.n, KS[i]); }

    b.ring.addEventListener("click", function () { change("ring", state.n, 1); });
    b.tree.addEventListener("click", function () { change("tree", state.n, state.algo === "tree" ? state.k : 1); });
    b.fewer.addEventListener("click", function () { if (state.n > NS[0]) change(state.algo, state.n - 1, state.k); });
    b.more.addEventListener("click", function () { if (state.n < NS[NS.length - 1]) change(state.algo, state.n + 1, state.k); });
    b.kLess.addEventListener("click", function () { stepK(-1); });
    b.kMore.addEventListener("click", function () { stepK(1); });
    b.prev.addEventListener("click", function () { go(state.step - 1); });
    b.next.addEventListener("click", function () { go(state.step + 1); });
    b.reset.addEventListener("click", function () { go(0); });

    render();
    root.setAttribute("data-ifig-ready", "true");
  }

  if (window.IFIG && typeof window.IFIG.register === "function") {
    window.IFIG.register("allreduce-steps", init);
  }
})();
