/*
 * Interactive figure "ddp-bucket-timeline" for the post "PyTorch DDP Deep Dive".
 *
 * Choose bucket_cap_mb, the layers and the batch; watch the cost model's backward: layers compute
 * last to first, their gradients fill the buckets in ready order, each full bucket's all-reduce is
 * launched in index order and runs while the earlier layers still compute, one all-reduce at a
 * time as on NCCL's one stream per process group (gloo's two worker threads can run two; the
 * model leaves that out), and backward() returns when both are done. The rule (DDPBT below) is a port of backward_timeline and timeline_events in
 * examples/pytorch_ddp_deep_dive/overlap.py, the post's tested model, whose bucket assignment is
 * checked against torch's own; tests/examples/test_pytorch_ddp_deep_dive.py runs DDPBT in Node
 * against it, and tests/browser/test_ifig_ddp_bucket_timeline.py drives this figure through the golden
 * traces in docs/blog/posts/pytorch-ddp-deep-dive/bucket-timeline.json.
 *
 * Markup: <figure class="ifig" data-ifig="ddp-bucket-timeline" data-alpha-ms data-ms-per-mib
 * data-ns-per-mac> (the model's constants) holding the static figure, a drawing of the first
 * scenario in two widths (svg.fig-svg and svg.fig-svg--narrow, direct children, so that
 * figures.css shows the phone's twin on a phone), and a <figcaption>. Once built, the script moves
 * the two drawings into an .ifig-static box, hidden once live (an error before that leaves them). State for tests, on the <figure>: data-cap ("unset" or MiB), data-layers,
 * data-width, data-batch, data-iteration, data-bucket-bytes, data-bucket-params (buckets split by
 * "|"), data-launch-ms, data-start-ms, data-done-ms, data-compute-ms, data-backward-ms,
 * data-exposed-ms, data-event, data-event-count, data-event-kind, data-event-ms,
 * data-bucket-states, data-ready-bytes, data-ifig-ready.
 */
var DDPBT = (function () {
  "use strict";
  var MIB = 1024 * 1024;
  var RANK = { begin: -1, ready: 0, done: 1, launch: 2, start: 3, end: 4 };

  // buckets.assign_by_size with an explicit order (the rebuild's case: no sorting).
  function assignBySize(sizes, limits, order) {
    var buckets = [], current = [], size = 0, li = 0;
    order.forEach(function (idx) {
      current.push(idx);
      size += sizes[idx];
      if (size >= limits[li]) {
        buckets.push(current);
        current = [];
        size = 0;
        li = Math.min(li + 1, limits.length - 1);
      }
    });
    if (current.length) buckets.push(current);
    return buckets;
  }

  function readyOrder(n) {
    var order = [];
    for (var i = n - 1; i >= 0; i--) order.push(2 * i + 1, 2 * i);
    return order;
  }

  function rebuildLimits(cap) {
    if (cap === null) return [MIB, 25 * MIB];
    var c = Math.trunc(cap * MIB);
    return [c, c];
  }

  function backwardMacs(widths, batch, i) {
    return batch * widths[i] * widths[i + 1] * (i > 0 ? 2 : 1);
  }

  function timeline(widths, cap, batch, alphaMs, msPerMib, nsPerMac, rebuilt) {
    var n = widths.length - 1, sizes = [], i;
    for (i = 0; i < n; i++) sizes.push(widths[i] * widths[i + 1] * 4, widths[i + 1] * 4);
    var order = readyOrder(n);
    var buckets = rebuilt ? assignBySize(sizes, rebuildLimits(cap), order) : [order];
    var t = 0, ready = {}, layers = [];
    for (i = n - 1; i >= 0; i--) {
      var start = t;
      t = t + backwardMacs(widths, batch, i) * nsPerMac / 1e6;
      layers.push({ layer: i, start_ms: start, end_ms: t });
      ready[2 * i + 1] = t;
      ready[2 * i] = t;
    }
    var out = [], launch = 0, done = 0;
    buckets.forEach(function (params, k) {
      var nbytes = 0, full = -Infinity;
      params.forEach(function (p) { nbytes += sizes[p]; full = Math.max(full, ready[p]); });
      launch = Math.max(full, launch);
      var begin = Math.max(launch, done);
      done = begin + alphaMs + nbytes / MIB * msPerMib;
      out.push({ index: k, params: params, param_bytes: params.map(function (p) { return sizes[p]; }),
                 bytes: nbytes, full_ms: full, launch_ms: launch, start_ms: begin, done_ms: done });
    });
    var end = Math.max(t, done);
    return { layers: layers, buckets: out, compute_ms: t, backward_ms: end, exposed_ms: end - t };
  }

  function events(tl) {
    var ev = [{ t: 0, kind: "begin", id: -1 }];
    tl.layers.forEach(function (l) { ev.push({ t: l.end_ms, kind: "ready", id: l.layer }); });
    tl.buckets.forEach(function (b) {
      ev.push({ t: b.launch_ms, kind: "launch", id: b.index }, { t: b.done_ms, kind: "done", id: b.index });
      if (b.start_ms > b.launch_ms) ev.push({ t: b.start_ms, kind: "start", id: b.index });
    });
    ev.push({ t: tl.backward_ms, kind: "end", id: -1 });
    ev.sort(function (a, b) { return a.t - b.t || RANK[a.kind] - RANK[b.kind]; });
    var readyLayers = {}, launched = {}, started = {}, finished = {};
    return ev.map(function (e) {
      if (e.kind === "ready") readyLayers[e.id] = true;
      else if (e.kind === "launch") launched[e.id] = true;
      else if (e.kind === "start") started[e.id] = true;
      else if (e.kind === "done") finished[e.id] = true;
      var states = [], readyBytes = [];
      tl.buckets.forEach(function (b) {
        var k = b.index, got = 0, bytes = 0;
        b.params.forEach(function (p, j) {
          if (readyLayers[Math.floor(p / 2)]) { got++; bytes += b.param_bytes[j]; }
        });
        readyBytes.push(bytes);
        if (finished[k]) states.push("done");
        else if (started[k] || (launched[k] && b.start_ms === b.launch_ms)) states.push("reducing");
        else if (launched[k]) states.push("queued");
        else if (got === b.params.length) states.push("full");
        else states.push("filling");
      });
      return { t_ms: e.t, kind: e.kind, id: e.id, states: states, ready_bytes: readyBytes };
    });
  }

  return { assignBySize: assignBySize, readyOrder: readyOrder, rebuildLimits: rebuildLimits,
           timeline: timeline, events: events };
})();

(function () {
  "use strict";
  if (typeof window === "undefined" || !window.IFIG) return;

  var SVGNS = "http://www.w3.org/2000/svg";
  var STYLE_ID = "ifig-ddp-bucket-timeline-style";
  var S = '.ifig[data-ifig="ddp-bucket-timeline"] ';
  var CSS = [
    S + ".bt-ui { text-align: left; }",
    S + ".bt-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(7.5rem, 1fr));",
    "  gap: 0.5rem 0.8rem; margin: 0.4rem 0; }",
    S + ".bt-field { display: flex; flex-direction: column; font-size: 0.75rem; gap: 0.15rem; }",
    S + ".bt-grid input, " + S + ".bt-grid select, " + S + ".bt-range input { font: inherit;",
    "  font-size: 0.8rem; min-height: 1.6rem; padding: 0.1em 0.3em; box-sizing: border-box; max-width: 100%;",
    "  color: var(--md-default-fg-color); background-color: var(--md-default-bg-color);",
    "  border: 1px solid var(--md-default-fg-color--light); border-radius: 0.1rem; }",
    S + ".bt-button { font: inherit; font-size: 0.8rem; font-weight: 700; min-height: 1.6rem;",
    "  padding: 0.1em 0.8em; cursor: pointer; color: var(--md-typeset-a-color);",
    "  background-color: var(--md-default-bg-color); border: 0.1rem solid var(--md-typeset-a-color);",
    "  border-radius: 0.1rem; }",
    S + ".bt-button:hover, " + S + ".bt-button:focus-visible { text-decoration: underline;",
    "  outline: 0.15rem solid var(--md-typeset-a-color); outline-offset: 0.15rem; }",
    S + ".bt-button:disabled { cursor: default; opacity: 0.5; text-decoration: none; outline: none; }",
    S + ".bt-range { display: flex; align-items: center; gap: 0.5rem; flex: 1 1 8rem; font-size: 0.75rem; }",
    S + ".bt-range input { flex: 1; padding: 0; border: 0; }",
    S + ".bt-out { margin: 0.3rem 0; font-size: 0.8rem; font-variant-numeric: tabular-nums; }",
    S + ".bt-plot { width: 100%; }",
    S + ".bt-plot svg { display: block; width: 100%; height: auto; max-width: none; }",
    S + ".bt-tiles { display: flex; flex-wrap: wrap; gap: 0.4rem; margin: 0.4rem 0; padding: 0;",
    "  list-style: none; }",
    S + ".bt-tiles li { margin: 0; min-width: 6.5rem; padding: 0.2rem 0.4rem; font-size: 0.7rem;",
    "  border: 1px solid var(--md-default-fg-color--lighter); border-radius: 0.2rem; }",
    S + '.bt-tiles li[data-state="reducing"], ' + S + '.bt-tiles li[data-state="queued"] {',
    "  border-color: var(--md-typeset-a-color); }",
    S + ".bt-tiles strong { font-family: var(--md-code-font-family); }",
    S + ".bt-tiles .ifig-bar { height: 0.5rem; margin-top: 0.2rem; }"
  ].join("\n");

  var CAP_LABEL = { "": "unset (default)" };

  // An element (HTML, or SVG when ns is given) with attributes and text.
  function make(ns, name, props, text) {
    var node = ns ? document.createElementNS(ns, name) : document.createElement(name);
    for (var k in props || {}) node.setAttribute(k, props[k]);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function el(name, props, text) { return make(null, name, props, text); }

  function svgEl(name, props, text) { return make(SVGNS, name, props, text); }

  var uid = 0;

  // A labelled control: <label for> beside it, so its accessible name is the label alone.
  function field(parent, label, control, cls) {
    var id = "ddp-bt-" + (++uid);
    var wrap = el("div", { "class": cls || "bt-field" });
    control.setAttribute("id", id);
    wrap.appendChild(el("label", { "for": id }, label));
    wrap.appendChild(control);
    parent.appendChild(wrap);
    return control;
  }

  function select(grid, label, values, names, value) {
    var s = el("select", {});
    values.forEach(function (v, i) { s.appendChild(el("option", { value: String(v) }, names[i])); });
    s.value = String(value);
    return field(grid, label, s);
  }

  function mib(bytes) { return (bytes / 1048576).toFixed(2) + " MiB"; }

  function layersOf(b) {
    var seen = [];
    b.params.forEach(function (p) { var l = Math.floor(p / 2); if (seen.indexOf(l) < 0) seen.push(l); });
    return (seen.length > 1 ? "layers " : "layer ") + seen.join(",");
  }

  function describe(e, tl) {
    var at = "t = " + e.t_ms.toFixed(2) + " ms: ";
    if (e.kind === "begin") return at + "backward starts with layer " + (tl.layers[0].layer) + ".";
    if (e.kind === "ready") return at + "layer " + e.id + " done, its bias and weight gradients are ready.";
    if (e.kind === "launch") return at + "bucket " + e.id + " is full and its turn has come: all-reduce launched.";
    if (e.kind === "start") return at + "the previous all-reduce is done: bucket " + e.id + "'s starts.";
    if (e.kind === "done") return at + "bucket " + e.id + "'s all-reduce is done.";
    return at + "backward() returns.";
  }

  function init(root) {
    if (root.getAttribute("data-ifig-ready") === "true") return;
    var statics = Array.prototype.slice.call(root.querySelectorAll(":scope > svg"));
    var c = root.dataset;
    var alpha = parseFloat(c.alphaMs), perMib = parseFloat(c.msPerMib), perMac = parseFloat(c.nsPerMac);
    if (!(alpha >= 0 && perMib > 0 && perMac > 0)) throw new Error("missing model constants");
    if (!document.getElementById(STYLE_ID)) {
      var style = el("style", { id: STYLE_ID });
      style.textContent = CSS;
      document.head.appendChild(style);
    }

    var ui = el("div", { "class": "bt-ui" });
    var grid = el("div", { "class": "bt-grid", role: "group", "aria-label": "Model settings" });
    ui.appendChild(grid);
    var caps = ["", 0.25, 0.5, 1, 2, 3, 5, 10, 25, 100];
    var cap = select(grid, "bucket_cap_mb", caps, caps.map(function (v) { return CAP_LABEL[v] || String(v); }), "");
    var layers = field(grid, "Layers (Linear)",
      el("input", { type: "number", min: "1", max: "16", step: "1", value: "4" }));
    var widths = [128, 256, 512, 1024, 2048, 4096];
    var width = select(grid, "Layer width", widths, widths.map(String), 512);
    var batches = [8, 32, 64, 256, 1024];
    var batch = select(grid, "Batch per rank", batches, batches.map(String), 256);
    var iteration = select(grid, "Iteration", [2, 1],
      ["2 and later: rebuilt buckets", "1: the constructor's one bucket"], 2);

    var summary = el("p", { "class": "bt-out", "aria-live": "polite" });
    ui.appendChild(summary);
    var plot = el("div", { "class": "bt-plot" });
    ui.appendChild(plot);
    var nav = el("div", { "class": "ifig-controls", role: "group", "aria-label": "Step through the backward" });
    var prev = el("button", { type: "button", "class": "bt-button" }, "Previous event");
    var next = el("button", { type: "button", "class": "bt-button" }, "Next event");
    nav.appendChild(prev);
    nav.appendChild(next);
    var range = field(nav, "Event", el("input", { type: "range", min: "0", max: "0", step: "1", value: "0" }),
      "bt-range");
    ui.appendChild(nav);
    var status = el("p", { "class": "bt-out", role: "status", "aria-live": "polite" });
    ui.appendChild(status);
    var tiles = el("ol", { "class": "bt-tiles", "aria-label": "Buckets in Reducer order" });
    ui.appendChild(tiles);
    root.insertBefore(ui, root.querySelector("figcaption"));

    var tl = null, evs = [], index = 0;

    function settings() {
      var n = Math.floor(Number(layers.value));
      n = n >= 1 ? Math.min(n, 16) : 1;
      return { cap: cap.value === "" ? null : Number(cap.value), layers: n, width: Number(width.value),
               batch: Number(batch.value), iteration: Number(iteration.value) };
    }

    function draw() {
      var W = Math.max(280, Math.floor(plot.clientWidth || 600));
      var pad = 8, top = tl.backward_ms;
      function x(t) { return pad + t / top * (W - 2 * pad); }
      var svg = svgEl("svg", { "class": "fig-svg", viewBox: "0 0 " + W + " 150", role: "img",
        "aria-label": "Backward compute and bucket all-reduces on a time axis" });
      svg.appendChild(svgEl("text", { "class": "fig-text-small", x: pad, y: 13 }, "backward compute, last layer first"));
      tl.layers.forEach(function (l, k) {
        var x0 = x(l.start_ms), x1 = x(l.end_ms);
        svg.appendChild(svgEl("rect", { "class": k % 2 ? "fig-box" : "fig-box-primary", x: x0.toFixed(1), y: 20,
          width: Math.max(x1 - x0, 1).toFixed(1), height: 22 }));
        if (x1 - x0 >= 30) {
          svg.appendChild(svgEl("text", { "class": "fig-mono", x: ((x0 + x1) / 2).toFixed(1), y: 35,
            "text-anchor": "middle" }, "L" + l.layer));
        }
      });
      svg.appendChild(svgEl("text", { "class": "fig-text-small", x: pad, y: 60 }, "all-reduces one at a time, as with NCCL"));
      tl.buckets.forEach(function (b) {
        var x0 = x(b.start_ms), x1 = x(b.done_ms);
        if (b.start_ms > b.launch_ms) {
          svg.appendChild(svgEl("line", { "class": "fig-line-dashed", x1: x(b.launch_ms).toFixed(1), y1: 78,
            x2: x0.toFixed(1), y2: 78 }));
        }
        svg.appendChild(svgEl("rect", { "class": "fig-fill-" + (b.index % 4 + 1), x: x0.toFixed(1), y: 67,
          width: Math.max(x1 - x0, 1.5).toFixed(1), height: 22 }));
        if (x1 - x0 >= 24) {
          svg.appendChild(svgEl("text", { "class": "fig-text-small", x: ((x0 + x1) / 2).toFixed(1), y: 103,
            "text-anchor": "middle" }, "b" + b.index));
        }
      });
      var xc = x(tl.compute_ms).toFixed(1);
      svg.appendChild(svgEl("line", { "class": "fig-line-dashed", x1: xc, y1: 18, x2: xc, y2: 92 }));
      var e = evs[index], xe = x(e.t_ms).toFixed(1);
      svg.appendChild(svgEl("line", { "class": "fig-line-accent", x1: xe, y1: 16, x2: xe, y2: 112 }));
      svg.appendChild(svgEl("line", { "class": "fig-axis", x1: pad, y1: 118, x2: W - pad, y2: 118 }));
      svg.appendChild(svgEl("text", { "class": "fig-text-small", x: pad, y: 134 }, "0 ms"));
      svg.appendChild(svgEl("text", { "class": "fig-text-small", x: W - pad, y: 134, "text-anchor": "end" },
        top.toFixed(1) + " ms"));
      svg.appendChild(svgEl("text", { "class": "fig-text-small", x: W / 2, y: 148, "text-anchor": "middle" },
        "dashed: compute ends; accent: this event"));
      plot.textContent = "";
      plot.appendChild(svg);
    }

    function showEvent(i) {
      index = Math.max(0, Math.min(evs.length - 1, i));
      var e = evs[index];
      range.value = String(index);
      prev.disabled = index === 0;
      next.disabled = index === evs.length - 1;
      status.textContent = "Event " + (index + 1) + " of " + evs.length + ". " + describe(e, tl);
      tiles.textContent = "";
      tl.buckets.forEach(function (b, k) {
        var li = el("li", { "data-state": e.states[k] });
        li.appendChild(el("strong", {}, "b" + b.index));
        li.appendChild(document.createTextNode(" · " + mib(b.bytes) + " · " + layersOf(b)));
        li.appendChild(el("div", {}, e.states[k] === "filling"
          ? "filling: " + mib(e.ready_bytes[k]) : e.states[k]));
        var bar = el("div", { "class": "ifig-bar", role: "img",
          "aria-label": mib(e.ready_bytes[k]) + " of " + mib(b.bytes) + " ready" });
        var fill = el("div", { "class": "ifig-bar__fill" });
        fill.style.width = (100 * e.ready_bytes[k] / b.bytes).toFixed(1) + "%";
        bar.appendChild(fill);
        li.appendChild(bar);
        tiles.appendChild(li);
      });
      root.dataset.event = String(index);
      root.dataset.eventKind = e.kind;
      root.dataset.eventMs = String(e.t_ms);
      root.dataset.bucketStates = e.states.join(",");
      root.dataset.readyBytes = e.ready_bytes.join(",");
      draw();
    }

    function update() {
      var s = settings();
      var w = [];
      for (var i = 0; i <= s.layers; i++) w.push(s.width);
      tl = DDPBT.timeline(w, s.cap, s.batch, alpha, perMib, perMac, s.iteration > 1);
      evs = DDPBT.events(tl);
      range.max = String(evs.length - 1);
      var bs = tl.buckets;
      summary.textContent = "Backward " + tl.backward_ms.toFixed(2) + " ms: compute " +
        tl.compute_ms.toFixed(2) + " ms, then " + tl.exposed_ms.toFixed(2) + " ms of all-reduce after it. " +
        bs.length + (bs.length === 1 ? " bucket: " : " buckets: ") +
        bs.map(function (b) { return mib(b.bytes); }).join(", ") + ".";
      var d = root.dataset;
      d.cap = s.cap === null ? "unset" : String(s.cap);
      d.layers = String(s.layers);
      d.width = String(s.width);
      d.batch = String(s.batch);
      d.iteration = String(s.iteration);
      d.bucketBytes = bs.map(function (b) { return b.bytes; }).join(",");
      d.bucketParams = bs.map(function (b) { return b.params.join(" "); }).join("|");
      d.launchMs = bs.map(function (b) { return String(b.launch_ms); }).join(",");
      d.startMs = bs.map(function (b) { return String(b.start_ms); }).join(",");
      d.doneMs = bs.map(function (b) { return String(b.done_ms); }).join(",");
      d.computeMs = String(tl.compute_ms);
      d.backwardMs = String(tl.backward_ms);
      d.exposedMs = String(tl.exposed_ms);
      d.eventCount = String(evs.length);
      showEvent(0);
    }

    [cap, width, batch, iteration].forEach(function (n) { n.addEventListener("change", update); });
    layers.addEventListener("input", update);
    prev.addEventListener("click", function () { showEvent(index - 1); });
    next.addEventListener("click", function () { showEvent(index + 1); });
    range.addEventListener("input", function () { showEvent(Number(range.value)); });
    if (window.ResizeObserver) {
      var last = 0;
      new ResizeObserver(function () {
        var w = Math.floor(plot.clientWidth);
        if (tl && w !== last) { last = w; draw(); }
      }).observe(plot);
    }
    update();
    // Live: the static drawings go into an .ifig-static box, which figures.css hides.
    var box = el("div", { "class": "ifig-static" });
    statics.forEach(function (svg) { box.appendChild(svg); });
    root.insertBefore(box, root.querySelector("figcaption"));
    root.setAttribute("data-ifig-ready", "true");
  }

  window.IFIG.register("ddp-bucket-timeline", init);
})();
