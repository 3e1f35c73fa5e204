/*
 * Interactive figure "capture-size-calculator" for the post "How vLLM's torch.compile Backend
 * Handles Dynamic Batch Sizes — A Code Walkthrough".
 *
 * Type a step's token count and the settings; see the capture sizes vLLM v0.33.0 would build,
 * the size the batch is padded to, the CUDA graph runtime mode it is dispatched to and which
 * compiled artifact of each piece serves it. The rules are our port of
 * VllmConfig._set_cudagraph_sizes (performance_mode "balanced", no speculative decoding) and of
 * CudagraphDispatcher.dispatch; tests/examples/test_vllm_torch_compile_dynamic_batch_sizes.py
 * runs captureSizes() in Node against the Python model, which is itself checked against the
 * functions in the vLLM wheel; tests/browser/test_ifig_capture_size_calculator.py drives the figure
 * through the scenarios of calculator-traces.json (written by the post's figures.py from that
 * model) at phone and desk widths, in both palettes.
 *
 * Markup: <figure class="ifig" data-ifig="capture-size-calculator"> with a static table in
 * .ifig-static and a <figcaption>. State for tests, on the <figure>: data-num-tokens,
 * data-padded (a number, or "none"), data-mode (FULL, PIECEWISE or NONE), data-artifact,
 * data-num-sizes.
 */
var CSC = (function () {
  "use strict";

  function captureSizes(maxNumSeqs, maxTokens, maxCapture, blackwell) {
    var decode = [];
    if (maxCapture === null || maxCapture === undefined) {
      maxCapture = Math.min(maxNumSeqs * 2, blackwell ? 1024 : 512);
      if (maxNumSeqs <= maxCapture) decode = [maxNumSeqs];
    }
    maxCapture = Math.min(maxTokens, maxCapture);
    var sizes = [1, 2, 4].filter(function (s) { return s <= maxCapture; });
    var s;
    for (s = 8; s < Math.min(maxCapture + 1, 256); s += 8) sizes.push(s);
    for (s = 256; s <= maxCapture; s += 16) sizes.push(s);
    if (maxTokens <= maxCapture) sizes.push(maxTokens);
    decode.forEach(function (d) { if (d <= maxTokens) sizes.push(d); });
    sizes = sizes.filter(function (v, i, a) { return a.indexOf(v) === i; });
    return sizes.sort(function (a, b) { return a - b; });
  }

  function padded(n, sizes) {
    for (var i = 0; i < sizes.length; i++) if (sizes[i] >= n) return sizes[i];
    return null;
  }

  // CUDAGraphMode: [decode mode, mixed mode] as in vllm/config/compilation.py.
  var MODES = {
    NONE: ["NONE", "NONE"], PIECEWISE: ["PIECEWISE", "PIECEWISE"], FULL: ["FULL", "FULL"],
    FULL_DECODE_ONLY: ["FULL", "NONE"], FULL_AND_PIECEWISE: ["FULL", "PIECEWISE"]
  };

  function dispatch(n, s) {
    var sizes = captureSizes(s.maxNumSeqs, s.maxTokens, null, s.blackwell);
    var size = padded(n, sizes);
    var pair = MODES[s.mode];
    var separate = pair[0] !== pair[1];
    var mode = "NONE";
    if (s.mode !== "NONE" && size !== null) {
      if (s.uniform && separate && pair[0] === "FULL" && size <= s.maxNumSeqs) mode = "FULL";
      else if (pair[1] === "FULL") mode = "FULL";
      else if (pair[1] === "PIECEWISE") mode = "PIECEWISE";
    }
    var tokens = mode === "NONE" ? n : size;
    var artifact = s.compileSizes.indexOf(tokens) >= 0 ? "Range(" + tokens + ", " + tokens + ")"
      : "Range(1, " + s.maxTokens + ")";
    return { sizes: sizes, padded: mode === "NONE" ? null : size, mode: mode, tokens: tokens,
             artifact: artifact };
  }

  return { captureSizes: captureSizes, padded: padded, dispatch: dispatch };
})();

(function () {
  "use strict";
  if (typeof window === "undefined" || !window.IFIG) return;

  var STYLE_ID = "ifig-capture-size-calculator-style";
  var CSS = [
    '.ifig[data-ifig="capture-size-calculator"] .csc-grid { display: grid;',
    "  grid-template-columns: repeat(auto-fit, minmax(10.5rem, 1fr)); gap: 0.5rem 0.8rem; }",
    '.ifig[data-ifig="capture-size-calculator"] label { display: flex; flex-direction: column;',
    "  font-size: 0.75rem; gap: 0.15rem; }",
    '.ifig[data-ifig="capture-size-calculator"] input, .ifig[data-ifig="capture-size-calculator"] select {',
    "  font: inherit; font-size: 0.8rem; padding: 0.15em 0.3em; color: var(--md-default-fg-color);",
    "  background-color: var(--md-default-bg-color); border: 1px solid var(--md-default-fg-color--light);",
    "  border-radius: 0.1rem; max-width: 100%; box-sizing: border-box; }",
    '.ifig[data-ifig="capture-size-calculator"] label.csc-check { flex-direction: row; align-items: center; }',
    '.ifig[data-ifig="capture-size-calculator"] .csc-button { font: inherit; font-weight: 700;',
    "  padding: 0.2em 0.9em; cursor: pointer; color: var(--md-typeset-a-color);",
    "  background-color: var(--md-default-bg-color); border: 0.1rem solid var(--md-typeset-a-color);",
    "  border-radius: 0.1rem; }",
    '.ifig[data-ifig="capture-size-calculator"] .csc-button:hover,',
    '.ifig[data-ifig="capture-size-calculator"] .csc-button:focus-visible { text-decoration: underline;',
    "  outline: 0.15rem solid var(--md-typeset-a-color); outline-offset: 0.15rem; }",
    '.ifig[data-ifig="capture-size-calculator"] .csc-ui { text-align: left; }',
    '.ifig[data-ifig="capture-size-calculator"] .csc-out { margin: 0.6rem 0; font-size: 0.8rem; }',
    '.ifig[data-ifig="capture-size-calculator"] .csc-sizes { font-family: var(--md-code-font-family);',
    "  font-size: 0.7rem; overflow-wrap: anywhere; }",
    '.ifig[data-ifig="capture-size-calculator"] .csc-hit { font-weight: 700;',
    "  text-decoration: underline; text-underline-offset: 0.2em; }"
  ].join("\n");

  function el(name, props, text) {
    var node = document.createElement(name);
    Object.keys(props || {}).forEach(function (k) { node.setAttribute(k, props[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function field(grid, label, input) {
    var wrap = el("label", {}, label);
    wrap.appendChild(input);
    grid.appendChild(wrap);
    return input;
  }

  window.IFIG.register("capture-size-calculator", function (root) {
    if (!document.getElementById(STYLE_ID)) {
      var style = el("style", { id: STYLE_ID });
      style.textContent = CSS;
      document.head.appendChild(style);
    }
    var ui = el("div", { "class": "csc-ui" });
    var grid = el("div", { "class": "csc-grid" });
    ui.appendChild(grid);
    var num = field(grid, "Tokens in this step", el("input", { type: "number", min: "1", max: "65536",
      value: root.dataset.numTokens || "13" }));
    var seqs = field(grid, "max_num_seqs", el("input", { type: "number", min: "1", max: "4096",
      value: "1024" }));
    var toks = field(grid, "max_num_batched_tokens", el("input", { type: "number", min: "1",
      max: "65536", value: "8192" }));
    var mode = field(grid, "cudagraph_mode", el("select", {}));
    ["FULL_AND_PIECEWISE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "NONE"].forEach(function (m) {
      mode.appendChild(el("option", { value: m }, m));
    });
    var sizesIn = field(grid, "compile_sizes (comma-separated)", el("input", { type: "text",
      value: "" }));
    var checks = el("div", { "class": "csc-grid" });
    ui.appendChild(checks);
    var uniform = el("input", { type: "checkbox" });
    var lu = el("label", { "class": "csc-check" });
    lu.appendChild(uniform);
    lu.appendChild(document.createTextNode(" uniform decode (1 token per request)"));
    checks.appendChild(lu);
    var bw = el("input", { type: "checkbox" });
    var lb = el("label", { "class": "csc-check" });
    lb.appendChild(bw);
    lb.appendChild(document.createTextNode(" data-centre Blackwell (ceiling 1024)"));
    checks.appendChild(lb);
    var controls = el("div", { "class": "ifig-controls" });
    var prev = el("button", { type: "button", "class": "csc-button" }, "Previous batch size");
    var next = el("button", { type: "button", "class": "csc-button" }, "Next batch size");
    controls.appendChild(prev);
    controls.appendChild(next);
    ui.appendChild(controls);
    var out = el("p", { "class": "csc-out", "aria-live": "polite" });
    ui.appendChild(out);
    var sizesOut = el("p", { "class": "csc-sizes" });
    ui.appendChild(sizesOut);
    root.insertBefore(ui, root.querySelector("figcaption"));

    function int(input, lo, fallback) {
      var v = Math.floor(Number(input.value));
      return v >= lo ? v : fallback;
    }

    function show() {
      var s = {
        maxNumSeqs: int(seqs, 1, 1024), maxTokens: int(toks, 1, 8192), mode: mode.value,
        blackwell: bw.checked, uniform: uniform.checked,
        compileSizes: sizesIn.value.split(",").map(function (x) { return Math.floor(Number(x)); })
          .filter(function (x) { return x > 0; })
      };
      var n = Math.min(int(num, 1, 1), s.maxTokens);
      var r = CSC.dispatch(n, s);
      var text = n + " tokens → ";
      if (r.mode === "NONE") {
        text += "no CUDA graph (mode NONE): the compiled pieces run on " + n + " tokens";
      } else {
        text += "padded to " + r.padded + " (+" + (r.padded - n) + " padding), mode " + r.mode;
        text += r.mode === "FULL" ? ": one graph replay of the whole forward" :
          ": each compiled piece replays its graph, attention runs eagerly";
      }
      text += ". Compiled artifact for the pieces: " + r.artifact + ".";
      out.textContent = text;
      sizesOut.textContent = "";
      sizesOut.appendChild(document.createTextNode(r.sizes.length + " capture sizes: "));
      r.sizes.forEach(function (v, i) {
        var span = el("span", v === r.padded ? { "class": "csc-hit" } : {}, String(v));
        sizesOut.appendChild(span);
        if (i < r.sizes.length - 1) sizesOut.appendChild(document.createTextNode(", "));
      });
      root.dataset.numTokens = String(n);
      root.dataset.padded = r.padded === null ? "none" : String(r.padded);
      root.dataset.mode = r.mode;
      root.dataset.artifact = r.artifact;
      root.dataset.numSizes = String(r.sizes.length);
    }

    [num, seqs, toks, sizesIn].forEach(function (i) { i.addEventListener("input", show); });
    [mode, uniform, bw].forEach(function (i) { i.addEventListener("change", show); });
    prev.addEventListener("click", function () { num.value = String(Math.max(1, int(num, 1, 1) - 1)); show(); });
    next.addEventListener("click", function () { num.value = String(int(num, 1, 1) + 1); show(); });
    show();
  });
})();
