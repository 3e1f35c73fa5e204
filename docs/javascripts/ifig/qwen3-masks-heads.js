/*
 * Interactive figure "qwen3-masks-heads" for the post "Qwen3 Architecture Layer-by-Layer".
 *
 * Choose a released dense size, a prompt length, a layer and the sliding-window settings; see
 * which layers slide, the layer's attention mask (rows are queries, columns keys), which
 * key/value head each query head reads, and the KV-cache bytes. The sizes' layers and heads come
 * from the post's configs.py, embedded as <script type="application/json" class="ifig-data">.
 * The rules follow transformers 5.24.0: Qwen3Config.__post_init__ (layer i slides when
 * use_sliding_window is on and i >= max_window_layers), sliding_window_causal_mask_function,
 * repeat_kv, and DynamicSlidingWindowLayer (a sliding layer keeps window - 1 tokens).
 * tests/browser/test_ifig_qwen3_masks_heads.py drives the figure through masks-traces.json, written by
 * examples/qwen3_architecture_layer_by_layer/mask_traces.py from those real functions.
 *
 * State for tests, on the <figure>: data-layer-type, data-sliding-layers ("28-35" or "none"),
 * data-mask (rows of 0/1 joined by "/"), data-visible, data-group, data-kv-of-query,
 * data-kv-bytes-per-token, data-cache-bytes.
 */
var QMH = (function () {
  "use strict";

  function compute(m, s) {
    var types = [];
    for (var i = 0; i < m.layers; i++) {
      types.push(s.sliding && i >= s.maxWindowLayers ? "sliding_attention" : "full_attention");
    }
    var kind = types[s.layer];
    var rows = [];
    for (var q = 0; q < s.tokens; q++) {
      var row = "";
      for (var k = 0; k < s.tokens; k++) {
        var seen = k <= q && (kind === "full_attention" || k > q - s.window);
        row += seen ? "1" : "0";
      }
      rows.push(row);
    }
    var group = m.heads / m.kv_heads;
    var kvOf = [];
    for (var n = 0; n < m.heads; n++) kvOf.push(Math.floor(n / group));
    var perLayer = 2 * m.kv_heads * m.head_dim * 2;            // K and V, bf16
    var kept = 0;
    types.forEach(function (t) {
      kept += t === "sliding_attention" ? Math.min(s.tokens, s.window - 1) : s.tokens;
    });
    var first = types.indexOf("sliding_attention");
    return {
      layerType: kind, types: types,
      slidingLayers: first < 0 ? "none" : first + "-" + (m.layers - 1),
      mask: rows,
      visible: rows.map(function (r) { return r.split("1").length - 1; }),
      group: group, kvOf: kvOf,
      kvBytesPerToken: perLayer * m.layers, cacheBytes: perLayer * kept
    };
  }

  return { compute: compute };
})();

(function () {
  "use strict";
  if (typeof window === "undefined" || !window.IFIG) return;

  // An element with attributes and, optionally, its text.
  function el(name, attrs, text) {
    var node = document.createElement(name);
    for (var key in attrs) if (Object.prototype.hasOwnProperty.call(attrs, key)) node.setAttribute(key, attrs[key]);
    if (typeof text === "string") node.textContent = text;
    return node;
  }

  var NAME = "qwen3-masks-heads";
  var STYLE_ID = "ifig-" + NAME + "-style";
  var SEL = '.ifig[data-ifig="' + NAME + '"] ';
  var CSS = [
    SEL + ".qmh-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(9rem, 1fr));",
    "  gap: 0.5rem 0.8rem; }",
    SEL + "label { display: flex; flex-direction: column; font-size: 0.75rem; gap: 0.15rem; }",
    SEL + "label.qmh-check { flex-direction: row; align-items: center; }",
    SEL + "input, " + SEL + "select { font: inherit; font-size: 0.8rem; padding: 0.15em 0.3em;",
    "  color: var(--md-default-fg-color); background-color: var(--md-default-bg-color);",
    "  border: 1px solid var(--md-default-fg-color--light); border-radius: 0.1rem; max-width: 100%;",
    "  box-sizing: border-box; }",
    SEL + ".qmh-button { font: inherit; font-weight: 700; font-size: 0.8rem; padding: 0.2em 0.9em;",
    "  cursor: pointer; color: var(--md-typeset-a-color); background-color: var(--md-default-bg-color);",
    "  border: 0.1rem solid var(--md-typeset-a-color); border-radius: 0.1rem; }",
    SEL + ".qmh-button:hover, " + SEL + ".qmh-button:focus-visible { text-decoration: underline;",
    "  outline: 0.15rem solid var(--md-typeset-a-color); outline-offset: 0.15rem; }",
    SEL + ".qmh-ui { text-align: left; }",
    SEL + ".qmh-out { margin: 0.6rem 0; font-size: 0.8rem; }",
    SEL + ".qmh-panels { display: flex; flex-wrap: wrap; gap: 1rem 1.5rem; align-items: flex-start; }",
    SEL + ".qmh-panel { flex: 1 1 12rem; min-width: 0; }",
    SEL + ".qmh-title { font-size: 0.75rem; font-weight: 700; margin: 0 0 0.3rem; }",
    SEL + ".qmh-mask { display: grid; gap: 1px; width: 100%; max-width: 16rem; aspect-ratio: 1; }",
    SEL + ".qmh-cell { background: var(--md-default-fg-color--lightest); min-width: 0; }",
    SEL + ".qmh-cell.qmh-on { background: var(--md-typeset-a-color); }",
    SEL + ".qmh-heads { font-size: 0.75rem; display: flex; flex-direction: column; gap: 0.2rem; }",
    SEL + ".qmh-row { display: flex; align-items: center; gap: 0.3rem; }",
    SEL + ".qmh-kv { font-family: var(--md-code-font-family); min-width: 3.2rem; }",
    SEL + ".qmh-q { display: inline-block; width: 0.6rem; height: 0.6rem; border-radius: 0.1rem;",
    "  background: var(--md-typeset-a-color); }",
    SEL + ".qmh-row:nth-child(even) .qmh-q { background: var(--md-default-fg-color--light); }",
    SEL + ".qmh-layers { display: flex; flex-wrap: wrap; gap: 2px; max-width: 16rem; margin-top: 0.3rem; }",
    SEL + ".qmh-layer { width: 0.5rem; height: 0.9rem; background: var(--md-default-fg-color--lightest); }",
    SEL + ".qmh-layer.qmh-slides { background: var(--md-typeset-a-color); }",
    SEL + ".qmh-layer.qmh-this { outline: 2px solid var(--md-default-fg-color); }"
  ].join("\n");

  function field(grid, label, input, cls) {
    input.setAttribute("aria-label", label);   // the name, without an embedded control's value
    var wrap = el("label", cls ? { "class": cls } : {});
    if (cls) { wrap.appendChild(input); wrap.appendChild(document.createTextNode(" " + label)); }
    else { wrap.appendChild(document.createTextNode(label)); wrap.appendChild(input); }
    grid.appendChild(wrap);
    return input;
  }

  function fmt(n) { return n.toLocaleString("en-US"); }

  window.IFIG.register(NAME, function (root) {
    var script = root.querySelector(".ifig-data");
    if (!script) throw new Error("no .ifig-data element with the configurations");
    var data = JSON.parse(window.IFIG.json(script));
    if (!document.getElementById(STYLE_ID)) {
      var style = el("style", { id: STYLE_ID });
      style.textContent = CSS;
      document.head.appendChild(style);
    }
    var d = data["default"];
    var ui = el("div", { "class": "qmh-ui" });
    var grid = el("div", { "class": "qmh-grid" });
    ui.appendChild(grid);
    var model = field(grid, "Model", el("select", {}));
    Object.keys(data.models).forEach(function (name) { model.appendChild(el("option", { value: name }, name)); });
    model.value = d.model;
    var tokens = field(grid, "Prompt tokens (1 to 24)", el("input", { type: "number", min: "1", max: "24",
      value: String(d.tokens) }));
    var layer = field(grid, "Layer", el("input", { type: "number", min: "0", value: String(d.layer) }));
    var window_ = field(grid, "sliding_window (2 to 24)", el("input", { type: "number", min: "2", max: "24",
      value: String(d.window) }));
    var mwl = field(grid, "max_window_layers", el("input", { type: "number", min: "0",
      value: String(d.max_window_layers) }));
    var sliding = field(grid, "use_sliding_window", el("input", { type: "checkbox" }), "qmh-check");
    sliding.checked = d.sliding;
    var controls = ui.appendChild(el("div", { "class": "ifig-controls" }));
    var stepButtons = ["Previous layer", "Next layer"].map(function (label) {
      return controls.appendChild(el("button", { type: "button", "class": "qmh-button" }, label));
    });
    var prev = stepButtons[0], next = stepButtons[1];
    var out = ui.appendChild(el("p", { "class": "qmh-out", "aria-live": "polite" }));
    var panels = el("div", { "class": "qmh-panels", "aria-hidden": "true" });
    // Two panels, each a list of (title, body) pairs; the bodies are redrawn by show().
    function panel(parts) {
      var box = panels.appendChild(el("div", { "class": "qmh-panel" }));
      return parts.map(function (part) {
        box.appendChild(el("p", { "class": "qmh-title" }, part[0]));
        return box.appendChild(el("div", { "class": part[1] }));
      });
    }
    var left = panel([["Mask: rows are queries, columns keys", "qmh-mask"],
                      ["Layers (filled: sliding; outlined: this one)", "qmh-layers"]]);
    var mask = left[0], strip = left[1];
    var heads = panel([["KV head ← the query heads that read it", "qmh-heads"]])[0];
    ui.appendChild(panels);
    root.insertBefore(ui, root.querySelector("figcaption"));

    // The field's whole number, clamped to [lo, hi]; the fallback only when it is not a number.
    function int(input, lo, hi, fallback) {
      var v = input.value === "" ? NaN : Math.floor(Number(input.value));
      if (v !== v) return fallback;
      return Math.max(lo, Math.min(v, hi));
    }

    function show() {
      var m = data.models[model.value];
      layer.max = String(m.layers - 1);
      mwl.max = String(m.layers);
      var s = {
        tokens: int(tokens, 1, 24, 1), layer: int(layer, 0, m.layers - 1, 0),
        window: int(window_, 2, 24, 4), maxWindowLayers: int(mwl, 0, m.layers, m.layers),
        sliding: sliding.checked
      };
      if (layer.value !== "" && layer.value !== String(s.layer)) layer.value = String(s.layer);
      var r = QMH.compute(m, s);
      mask.style.gridTemplateColumns = "repeat(" + s.tokens + ", 1fr)";
      mask.textContent = "";
      r.mask.forEach(function (row) {
        for (var k = 0; k < row.length; k++) {
          mask.appendChild(el("span", { "class": row[k] === "1" ? "qmh-cell qmh-on" : "qmh-cell" }));
        }
      });
      strip.textContent = "";
      r.types.forEach(function (t, i) {
        var cls = "qmh-layer" + (t === "sliding_attention" ? " qmh-slides" : "") + (i === s.layer ? " qmh-this" : "");
        strip.appendChild(el("span", { "class": cls }));
      });
      heads.textContent = "";
      for (var kv = 0; kv < m.kv_heads; kv++) {
        var row = el("div", { "class": "qmh-row" });
        row.appendChild(el("span", { "class": "qmh-kv" }, "KV " + kv));
        var mine = [];
        r.kvOf.forEach(function (owner, q) { if (owner === kv) mine.push(q); });
        mine.forEach(function () { row.appendChild(el("span", { "class": "qmh-q" })); });
        row.appendChild(el("span", {}, "q " + mine[0] + "–" + mine[mine.length - 1]));
        heads.appendChild(row);
      }
      var slides = r.slidingLayers === "none" ? "no layer slides" :
        "layers " + r.slidingLayers.replace("-", "–") + " slide";
      out.textContent = model.value + ", layer " + s.layer + ": " + r.layerType.replace("_", " ") +
        " (" + slides + "). Keys seen by each of the " +
        s.tokens + " queries: " + r.visible.join(" ") + ". " + m.heads + " query heads share " +
        m.kv_heads + " KV heads, " + r.group + " each: query head n reads KV head ⌊n / " + r.group +
        "⌋. KV cache: " + fmt(r.kvBytesPerToken) + " bytes per token with every layer full (bf16); " +
        fmt(r.cacheBytes) + " bytes after this " + s.tokens + "-token prompt.";
      root.dataset.layerType = r.layerType;
      root.dataset.slidingLayers = r.slidingLayers;
      root.dataset.mask = r.mask.join("/");
      root.dataset.visible = r.visible.join(" ");
      root.dataset.group = String(r.group);
      root.dataset.kvOfQuery = r.kvOf.join(",");
      root.dataset.kvBytesPerToken = String(r.kvBytesPerToken);
      root.dataset.cacheBytes = String(r.cacheBytes);
    }

    [tokens, layer, window_, mwl].forEach(function (i) { i.addEventListener("input", show); });
    [model, sliding].forEach(function (i) { i.addEventListener("change", show); });
    prev.addEventListener("click", function () { layer.value = String(Math.max(0, int(layer, 0, 999, 0) - 1)); show(); });
    next.addEventListener("click", function () {
      layer.value = String(Math.min(data.models[model.value].layers - 1, int(layer, 0, 999, 0) + 1)); show();
    });
    show();
  });
})();
