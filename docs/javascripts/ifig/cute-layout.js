/*
 * Interactive figure "cute-layout" for the post "CUTLASS Deep Dive: From CuTe Layouts to
 * Blackwell tcgen05": a rank-2 CuTe layout (M,N):(dM,dN), tiled by a shape tiler <TM,TN>
 * (CuTe reads a Shape as the tiler <TM:1, TN:1>).
 *
 * It draws the index map (the number in each cell is L(i,j) = i*dM + j*dN) and the partition
 * that zipped_divide(L, <TM,TN>) makes of it (each tile a colour, its number in the corner),
 * and prints the divided layout ((TM,TN),(M/TM,N/TN)):((dM,dN),(TM*dM,TN*dN)) (0 for size-1 modes).
 * The arithmetic is in LAYOUT below; examples/cutlass_deep_dive tests it against the Python
 * implementation of the algebra by running this file under Node.
 *
 * Markup: <figure class="ifig" data-ifig="cute-layout"> <div class="ifig-static">...</div>
 *         <figcaption>...</figcaption></figure>
 * State for readers and tests, on the <figure>:
 *   data-example   index of the preset shown (changes with Previous/Next example)
 *   data-layout    the layout, e.g. "(8,8):(1,8)"
 *   data-divided   zipped_divide result, or "" when the tiler does not divide the shape
 *   data-tiles     number of tiles
 *   data-injective "true" when no two coordinates share an index
 *   data-bands     how many bands the columns are drawn in (more than 1 when the layout is wider
 *                  than the column has room for at 11 px labels, e.g. 16 columns on a phone)
 *   data-band-columns  columns per band
 */
(function () {
  "use strict";

  var LAYOUT = {
    index: function (p, i, j) { return i * p.dM + j * p.dN; },
    check: function (p) {
      var keys = ["M", "N", "dM", "dN", "TM", "TN"];
      for (var k = 0; k < keys.length; k++) {
        var v = p[keys[k]];
        if (!Number.isInteger(v) || v < 0) return keys[k] + " must be a whole number";
      }
      if (p.M < 1 || p.N < 1 || p.M > 16 || p.N > 16) return "M and N must be 1 to 16";
      if (p.TM < 1 || p.TN < 1) return "the tiler's extents must be at least 1";
      if (p.M % p.TM || p.N % p.TN) return "TM must divide M and TN must divide N";
      return "";
    },
    // A size-1 mode's stride is never multiplied; CuTe's complement and composition print it as 0.
    divided: function (p) {
      var st = function (n, d) { return n === 1 ? 0 : d; };
      var rm = p.M / p.TM, rn = p.N / p.TN;
      return "((" + p.TM + "," + p.TN + "),(" + rm + "," + rn + ")):((" + st(p.TM, p.dM) + "," +
        st(p.TN, p.dN) + "),(" + st(rm, p.TM * p.dM) + "," + st(rn, p.TN * p.dN) + "))";
    },
    // Tile number of (i,j): the rest mode (M/TM, N/TN) is read colexicographically, as CuTe does.
    tile: function (p, i, j) { return Math.floor(i / p.TM) + (p.M / p.TM) * Math.floor(j / p.TN); },
    // Position inside the tile: the tile mode (TM, TN), also colexicographic.
    within: function (p, i, j) { return (i % p.TM) + p.TM * (j % p.TN); },
    injective: function (p) {
      var seen = {};
      for (var i = 0; i < p.M; i++) {
        for (var j = 0; j < p.N; j++) {
          var x = LAYOUT.index(p, i, j);
          if (seen[x]) return false;
          seen[x] = true;
        }
      }
      return true;
    },
    text: function (p) { return "(" + p.M + "," + p.N + "):(" + p.dM + "," + p.dN + ")"; },
  };

  var PRESETS = [
    { name: "column-major 8x8, 2x4 tiles", M: 8, N: 8, dM: 1, dN: 8, TM: 2, TN: 4 },
    { name: "row-major 8x8, 4x2 tiles", M: 8, N: 8, dM: 8, dN: 1, TM: 4, TN: 2 },
    { name: "padded 4x6 (leading dimension 5)", M: 4, N: 6, dM: 1, dN: 5, TM: 2, TN: 3 },
    { name: "broadcast column: stride 0", M: 4, N: 8, dM: 1, dN: 0, TM: 4, TN: 2 },
    { name: "row-major 16x8, 8x4 tiles", M: 16, N: 8, dM: 8, dN: 1, TM: 8, TN: 4 },
  ];

  var CELL = 40, PAD = 26;

  // Columns per band: as many as fit `width` CSS px at one unit per px (so an 11-unit label is drawn
  // at 11 px or more), rounded down to whole tiles when a tile fits; a wider layout wraps into bands
  // stacked top to bottom, each with its own column numbers.
  function bandColumns(p, width) {
    var fit = Math.max(1, Math.floor((width - PAD - 4) / CELL));
    if (fit >= p.N) return p.N;
    return fit >= p.TN ? fit - (fit % p.TN) : fit;
  }

  if (typeof module !== "undefined" && module.exports) {
    module.exports = { LAYOUT: LAYOUT, PRESETS: PRESETS, bandColumns: bandColumns };
    return;
  }

  var SVGNS = "http://www.w3.org/2000/svg";
  var STYLE_ID = "ifig-cute-layout-style";
  var CSS = [
    '.ifig[data-ifig="cute-layout"] .cl-button {',
    "  display: inline-block; margin: 0; padding: 0.2em 0.9em; font: inherit; font-weight: 700;",
    "  cursor: pointer; color: var(--md-typeset-a-color); background-color: var(--md-default-bg-color);",
    "  border: 0.1rem solid var(--md-typeset-a-color); border-radius: 0.1rem; }",
    '.ifig[data-ifig="cute-layout"] .cl-button:hover, .ifig[data-ifig="cute-layout"] .cl-button:focus-visible {',
    "  text-decoration: underline; outline: 0.15rem solid var(--md-typeset-a-color); outline-offset: 0.15rem; }",
    '.ifig[data-ifig="cute-layout"] .cl-fields { display: grid; gap: 0.3rem 0.8rem;',
    "  grid-template-columns: repeat(auto-fill, minmax(6.5rem, 1fr)); margin: 0.5rem 0; }",
    '.ifig[data-ifig="cute-layout"] .cl-fields label { display: flex; flex-direction: column; font-size: 0.75rem; }',
    '.ifig[data-ifig="cute-layout"] .cl-fields input { font: inherit; width: 100%; padding: 0.1rem 0.3rem;',
    "  color: var(--md-default-fg-color); background: var(--md-default-bg-color);",
    "  border: 0.05rem solid var(--md-default-fg-color--light); }",
    '.ifig[data-ifig="cute-layout"] .cl-mode { display: flex; gap: 0.5rem; align-items: center; }',
  ].join("\n");

  function el(name, attrs, text) {
    var node = document.createElement(name);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function svgEl(name, attrs, text) {
    var node = document.createElementNS(SVGNS, name);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function draw(svg, p, view, prefix, cols) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var bands = Math.ceil(p.N / cols), bandH = PAD + p.M * CELL + 12;
    var w = PAD + cols * CELL + 4, h = bands * bandH - 8;
    svg.setAttribute("viewBox", "0 0 " + w + " " + h);
    var title = svgEl("title", { id: prefix + "-live-title" },
      "Index map of " + LAYOUT.text(p) + " cut into " + p.TM + "x" + p.TN + " tiles" +
      (bands > 1 ? ", columns wrapped into " + bands + " bands of " + cols : ""));
    var desc = svgEl("desc", { id: prefix + "-live-desc" },
      "Each cell shows " + (view === "index" ? "the index L(i,j)" : "the position inside its tile") +
      "; cells of the same tile share a colour and the tile number is in the corner.");
    svg.appendChild(title);
    svg.appendChild(desc);
    for (var b = 0; b < bands; b++) {
      var j0 = b * cols, j1 = Math.min(p.N, j0 + cols), top = b * bandH;
      for (var j = j0; j < j1; j++) {
        svg.appendChild(svgEl("text", { x: PAD + (j - j0) * CELL + CELL / 2, y: top + 16, "text-anchor": "middle",
          "class": "fig-text-small fig-text-muted" }, String(j)));
      }
      for (var i = 0; i < p.M; i++) {
        svg.appendChild(svgEl("text", { x: 12, y: top + PAD + i * CELL + CELL / 2 + 4, "text-anchor": "middle",
          "class": "fig-text-small fig-text-muted" }, String(i)));
        for (j = j0; j < j1; j++) {
          var t = LAYOUT.tile(p, i, j);
          var x = PAD + (j - j0) * CELL, y = top + PAD + i * CELL;
          svg.appendChild(svgEl("rect", { x: x, y: y, width: CELL, height: CELL,
            "class": "fig-fill-" + ((t % 4) + 1), "fill-opacity": (Math.floor(t / 4) % 2) ? "0.18" : "0.4" }));
          svg.appendChild(svgEl("rect", { x: x, y: y, width: CELL, height: CELL, "class": "fig-box",
            "fill-opacity": "0" }));
          var value = view === "index" ? LAYOUT.index(p, i, j) : LAYOUT.within(p, i, j);
          svg.appendChild(svgEl("text", { x: x + CELL / 2, y: y + CELL / 2 + 6, "text-anchor": "middle",
            "class": "fig-text fig-mono" }, String(value)));
          if (LAYOUT.within(p, i, j) === 0) {
            svg.appendChild(svgEl("text", { x: x + 3, y: y + 11, "class": "fig-text-small" }, "t" + t));
          }
        }
      }
      var right = PAD + (j1 - j0) * CELL;
      for (i = 0; i <= p.M; i += p.TM) {
        svg.appendChild(svgEl("line", { x1: PAD, x2: right, y1: top + PAD + i * CELL, y2: top + PAD + i * CELL,
          "class": "fig-line-accent", "stroke-width": "3" }));
      }
      for (j = j0; j <= j1; j++) {
        if (j % p.TN && j !== j0 && j !== j1) continue;
        svg.appendChild(svgEl("line", { y1: top + PAD, y2: top + PAD + p.M * CELL, x1: PAD + (j - j0) * CELL,
          x2: PAD + (j - j0) * CELL, "class": j % p.TN ? "fig-line" : "fig-line-accent",
          "stroke-width": j % p.TN ? "1" : "3" }));
      }
    }
    return bands;
  }

  window.IFIG.register("cute-layout", function (root) {
    if (!document.getElementById(STYLE_ID)) {
      var style = el("style", { id: STYLE_ID });
      style.textContent = CSS;
      document.head.appendChild(style);
    }
    var example = 0, view = "index";
    var prefix = root.id || "cute-layout";
    var ui = el("div", { "class": "cl-ui" });
    var presets = el("div", { "class": "ifig-controls" });
    var prev = el("button", { type: "button", "class": "cl-button" }, "Previous example");
    var next = el("button", { type: "button", "class": "cl-button" }, "Next example");
    var toggle = el("button", { type: "button", "class": "cl-button", "aria-pressed": "false" },
      "Show position in tile");
    presets.appendChild(prev);
    presets.appendChild(next);
    presets.appendChild(toggle);
    var fields = el("div", { "class": "cl-fields" });
    var inputs = {};
    [["M", "Shape M (rows)"], ["N", "Shape N (columns)"], ["dM", "Stride dM"], ["dN", "Stride dN"],
      ["TM", "Tiler TM"], ["TN", "Tiler TN"]].forEach(function (f) {
      var label = el("label", {}, f[1]);
      var input = el("input", { type: "number", min: "0", max: "64", step: "1", inputmode: "numeric",
        name: "cl-" + f[0] });
      label.appendChild(input);
      fields.appendChild(label);
      inputs[f[0]] = input;
    });
    var readout = el("p", { "class": "ifig-readout", "aria-live": "polite" });
    var svg = svgEl("svg", { "class": "fig-svg", role: "img",
      "aria-labelledby": prefix + "-live-title " + prefix + "-live-desc" });
    ui.appendChild(presets);
    ui.appendChild(fields);
    ui.appendChild(readout);
    ui.appendChild(svg);
    root.insertBefore(ui, root.querySelector("figcaption"));

    function read() {
      var p = {};
      Object.keys(inputs).forEach(function (k) { p[k] = Number(inputs[k].value); });
      return p;
    }

    function show(p) {
      var problem = LAYOUT.check(p);
      root.dataset.example = String(example);
      root.dataset.layout = problem ? "" : LAYOUT.text(p);
      if (problem) {
        root.dataset.divided = "";
        readout.textContent = "Not drawn: " + problem + ".";
        return;
      }
      root.dataset.divided = LAYOUT.divided(p);
      root.dataset.tiles = String((p.M / p.TM) * (p.N / p.TN));
      root.dataset.injective = String(LAYOUT.injective(p));
      readout.textContent = LAYOUT.text(p) + " / <" + p.TM + "," + p.TN + "> = " + LAYOUT.divided(p) +
        " — " + root.dataset.tiles + " tiles of " + (p.TM * p.TN) + " elements; " +
        (LAYOUT.injective(p) ? "every coordinate has its own index." : "some coordinates share an index.");
      var cols = bandColumns(p, ui.clientWidth || 720);
      root.dataset.bandColumns = String(cols);
      root.dataset.bands = String(draw(svg, p, view, prefix, cols));
    }

    function load(k) {
      example = (k + PRESETS.length) % PRESETS.length;
      var p = PRESETS[example];
      Object.keys(inputs).forEach(function (key) { inputs[key].value = String(p[key]); });
      show(read());
    }

    Object.keys(inputs).forEach(function (k) {
      inputs[k].addEventListener("input", function () { show(read()); });
    });
    prev.addEventListener("click", function () { load(example - 1); });
    next.addEventListener("click", function () { load(example + 1); });
    toggle.addEventListener("click", function () {
      view = view === "index" ? "within" : "index";
      toggle.setAttribute("aria-pressed", String(view === "within"));
      show(read());
    });
    // Redraw when the column's width changes the number of columns that fit (a phone turned sideways).
    if (typeof ResizeObserver !== "undefined") {
      new ResizeObserver(function () {
        var p = read();
        if (!LAYOUT.check(p) && String(bandColumns(p, ui.clientWidth || 720)) !== root.dataset.bandColumns) show(p);
      }).observe(ui);
    }
    load(0);
  });
})();
