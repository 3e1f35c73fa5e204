/*
 * Interactive figure "online-softmax" for the post "From FlashAttention to FlashAttention 2".
 *
 * Steps one query block through its K/V blocks and shows the running max m, the rescale factor
 * alpha = exp(m_old - m_new), the running sum l and the output estimate after each block. The
 * numbers are not computed here: they come from the JSON that
 * examples/flashattention_to_flashattention_2/online_softmax_steps.py writes (and the tests
 * regenerate), embedded in the figure as <script type="application/json" class="ifig-data">.
 *
 * Without JavaScript the figure shows its static table of every step (class ifig-static, hidden
 * by figures.css once core.js marks the figure live). With it, a stepper is inserted before the
 * caption. Registered through IFIG.register (docs/javascripts/ifig/core.js). State for browser
 * tests is on the <figure>:
 *   data-step (0 = before the loop, 1..n = after K/V block visits, n + 1 = epilogue),
 *   data-total-steps (n + 1), data-phase (init | block | epilogue), data-n-block,
 *   data-m, data-l, data-alpha (comma-separated per query row, "-inf" where infinite),
 *   data-layout ("narrow" at phone widths, where the strip is redrawn 350 units wide),
 *   data-ifig-ready ("true" once built).
 */
(function () {
  "use strict";

  var SVG_NS = "http://www.w3.org/2000/svg";

  function fmt(v, digits) {
    if (v === "-inf") return "\u2212\u221e";
    if (v === "inf") return "\u221e";
    var s = Number(v).toFixed(digits === undefined ? 3 : digits);
    return s.charAt(0) === "-" ? "\u2212" + s.slice(1) : s;
  }

  function attr(values) {
    return values.map(function (v) { return typeof v === "string" ? v : String(v); }).join(",");
  }

  function el(name, props, text) {
    var node = document.createElement(name);
    Object.keys(props || {}).forEach(function (k) { node.setAttribute(k, props[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function svgEl(name, props, text) {
    var node = document.createElementNS(SVG_NS, name);
    Object.keys(props || {}).forEach(function (k) { node.setAttribute(k, props[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* Everything the figure shows for state index i (0 .. n + 1). */
  function stateAt(data, i) {
    var rows = data.block_m;
    var n = data.steps.length;
    var fill = function (v) { var a = []; for (var r = 0; r < rows; r++) a.push(v); return a; };
    if (i === 0) {
      return { phase: "init", step: null, m: fill("-inf"), l: fill(0), alpha: fill(null),
               o: null, changed: fill(false) };
    }
    if (i <= n) {
      var st = data.steps[i - 1];
      return { phase: "block", step: st, m: st.m, l: st.l,
               alpha: st.is_first ? fill(null) : st.alpha, o: st.o_partial, changed: st.m_changed };
    }
    var last = data.steps[n - 1];
    return { phase: "epilogue", step: null, m: last.m, l: last.l, alpha: fill(null),
             o: data.final.o, lse: data.final.lse, changed: fill(false) };
  }

  function statusText(data, i, s) {
    var n = data.steps.length;
    var total = n + 1;
    if (s.phase === "init") {
      return "Before the loop: for all " + data.block_m + " query rows m = \u2212\u221e, " +
        "\u2113 = 0 and acc_o = 0. Press Next to load the first K/V block.";
    }
    if (s.phase === "epilogue") {
      return "Step " + i + " of " + total + ", epilogue (normalize_softmax_lse): O = acc_o / \u2113 " +
        "and LSE = m + log \u2113 are written to HBM once. LSE = " +
        s.lse.map(function (v) { return fmt(v); }).join(", ") + ".";
    }
    var st = s.step;
    var head = "Step " + i + " of " + total + ": K/V block " + st.n_block + " (keys " +
      st.keys[0] + "\u2013" + st.keys[1] + "). ";
    if (st.is_first) {
      return head + "First block visited: m and \u2113 start from this block, nothing to rescale.";
    }
    var rose = [];
    st.m_changed.forEach(function (c, r) { if (c) rose.push(r); });
    if (rose.length === 0) {
      return head + "No row's maximum changed, so \u03b1 = 1 and acc_o is only added to.";
    }
    return head + "The running max rose in row" + (rose.length > 1 ? "s " : " ") +
      rose.join(", ") + ": acc_o and \u2113 of " + (rose.length > 1 ? "those rows" : "that row") +
      " are multiplied by \u03b1 < 1 before this block is added.";
  }

  /* The strip's geometry: 490 units wide at a desk; on a phone (figures.css's breakpoint) 350
     units, so that its 11-unit labels render at 11 CSS px or more in a 358 px column. */
  var WIDE = { w: 490, h: 250, bw: 86, gap: 8, x0: 10, cw: 84, gx: 80, split: false };
  var NARROW = { w: 350, h: 268, bw: 62, gap: 5, x0: 8, cw: 74, gx: 46, split: true };

  function drawStrip(svg, data, s, idPrefix, g) {
    while (svg.lastChild) svg.removeChild(svg.lastChild);
    svg.setAttribute("viewBox", "0 0 " + g.w + " " + g.h);
    var n = data.steps.length;
    var nBlocks = data.n_keys / data.block_n;
    var title = svgEl("title", { id: idPrefix + "-strip-title" }, "K/V blocks and the current score tile");
    var desc = svgEl("desc", { id: idPrefix + "-strip-desc" },
      "Boxes for the " + nBlocks + " K/V blocks, marking visited, current and upcoming blocks, " +
      "and the scores of the current block for the four query rows.");
    svg.appendChild(title);
    svg.appendChild(desc);
    var visited = {};
    var current = s.phase === "block" ? s.step.n_block : null;
    var upto = s.phase === "init" ? 0 : (s.phase === "block" ? data.steps.indexOf(s.step) + 1 : n);
    for (var v = 0; v < upto; v++) visited[data.steps[v].n_block] = true;
    svg.appendChild(svgEl("text", { x: g.x0, y: 18, "class": "fig-text" }, "K/V blocks in HBM"));
    svg.appendChild(svgEl("text", { x: g.x0, y: 34, "class": "fig-text-small" },
      "visited last to first, as compute_attn_1rowblock does"));
    var bw = g.bw, gap = g.gap, x0 = g.x0, y0 = 44;
    for (var j = 0; j < nBlocks; j++) {
      var cls = j === current ? "fig-box-primary" : (visited[j] ? "fig-box-ok" : "fig-box");
      var x = x0 + j * (bw + gap);
      var cx = x + bw / 2;
      svg.appendChild(svgEl("rect", { x: x, y: y0, width: bw, height: 56, rx: 4, "class": cls }));
      svg.appendChild(svgEl("text", { x: cx, y: y0 + 18, "text-anchor": "middle",
        "class": "fig-text" }, "block " + j));
      svg.appendChild(svgEl("text", { x: cx, y: y0 + 34, "text-anchor": "middle",
        "class": "fig-text-small" }, "keys " + (j * data.block_n) + "\u2013" +
        ((j + 1) * data.block_n - 1)));
      svg.appendChild(svgEl("text", { x: cx, y: y0 + 49, "text-anchor": "middle",
        "class": "fig-text-small" }, j === current ? "current" : (visited[j] ? "done" : "to do")));
    }
    var ty = 126;
    if (s.phase !== "block") {
      var lines = s.phase === "init"
        ? ["No score tile yet: the Q block is loaded,", "acc_o is cleared."]
        : ["Epilogue: one division by \u2113 per row,", "then O and LSE go to HBM."];
      if (!g.split) lines = [lines.join(" ")];
      lines.forEach(function (line, k) {
        svg.appendChild(svgEl("text", { x: g.x0, y: ty + 16 * k, "class": "fig-text-small" }, line));
      });
      return;
    }
    var head = ["S = scale \u00b7 Q K\u1d40 for block " + current + ", on chip only;", "bold = row max"];
    if (!g.split) head = [head.join(" ")];
    head.forEach(function (line, k) {
      svg.appendChild(svgEl("text", { x: g.x0, y: ty + 16 * k, "class": "fig-text-small" }, line));
    });
    var cw = g.cw, ch = 22, gx = g.gx, gy = ty + 8 + 16 * (head.length - 1);
    for (var c = 0; c < data.block_n; c++) {
      svg.appendChild(svgEl("text", { x: gx + c * cw + cw / 2, y: gy + 12, "text-anchor": "middle",
        "class": "fig-text-small" }, "key " + (s.step.keys[0] + c)));
    }
    s.step.scores.forEach(function (row, r) {
      var y = gy + 18 + r * ch;
      svg.appendChild(svgEl("text", { x: gx - 8, y: y + 15, "text-anchor": "end",
        "class": "fig-text-small" }, "row " + r));
      var mx = Math.max.apply(null, row);
      row.forEach(function (val, c2) {
        var t = svgEl("text", { x: gx + c2 * cw + cw / 2, y: y + 15, "text-anchor": "middle",
          "class": "fig-mono" }, fmt(val));
        if (val === mx) t.setAttribute("font-weight", "bold");
        svg.appendChild(t);
      });
    });
  }

  function fillTable(tbody, data, s) {
    while (tbody.lastChild) tbody.removeChild(tbody.lastChild);
    for (var r = 0; r < data.block_m; r++) {
      var tr = el("tr");
      tr.appendChild(el("th", { scope: "row" }, "row " + r));
      var blockMax = s.phase === "block" ? fmt(s.step.block_max[r]) : "\u2014";
      tr.appendChild(el("td", {}, blockMax));
      var mCell = el("td", {});
      if (s.changed[r] && s.phase === "block" && !s.step.is_first) {
        mCell.appendChild(el("strong", {}, fmt(s.m[r]) + " \u25b2"));
      } else {
        mCell.textContent = fmt(s.m[r]);
      }
      tr.appendChild(mCell);
      tr.appendChild(el("td", {}, s.alpha[r] === null ? "\u2014" : fmt(s.alpha[r])));
      tr.appendChild(el("td", {}, fmt(s.l[r])));
      var oCell = el("td");
      if (s.o) {
        // Material sets code at 0.85em, under 11 px in a table on a phone: keep the table's size.
        oCell.appendChild(el("code", { style: "white-space: nowrap; font-size: 1em" },
          s.o[r].map(function (v) { return fmt(v, 3); }).join(" ")));
      } else {
        oCell.textContent = "\u2014";
      }
      tr.appendChild(oCell);
      tbody.appendChild(tr);
    }
  }

  function init(root) {
    if (root.getAttribute("data-ifig-ready") === "true") return;
    var script = root.querySelector(".ifig-data");
    // Throwing keeps the static table: core.js only marks a figure live when init succeeds.
    if (!script) throw new Error("no .ifig-data element with the steps");
    var data = JSON.parse(window.IFIG.json(script));
    if (!data.steps || !data.steps.length) throw new Error("the step data is empty");
    var idPrefix = root.id || "online-softmax";
    var last = data.steps.length + 1;
    var index = 0;

    var ui = el("div", { "class": "ifig-ui" });
    var controls = el("div", { "class": "ifig-controls", role: "group",
      "aria-label": "Step through the K/V blocks" });
    // Each accessible name starts with the button's visible word (WCAG 2.5.3, axe's
    // label-content-name-mismatch); the arrows are decorative. Colours, through Material's own
    // variables so that both palettes follow: an outlined .md-button is drawn in
    // --md-primary-fg-color, below 4.5:1 on the dark (slate) background, so the outlined buttons
    // use the site's link colour --md-typeset-a-color instead; and a hovered or focused button
    // shows white on --md-accent-fg-color (4.25:1 light, 3.36:1 dark), so every button uses the
    // darker primary shade there.
    var hover = "--md-accent-fg-color: var(--md-primary-fg-color--dark)";
    var outlined = "--md-primary-fg-color: var(--md-typeset-a-color); " + hover;
    var buttons = {
      first: el("button", { type: "button", "class": "md-button", style: outlined,
        "aria-label": "Start: back to before the first block" }, "\u00ab Start"),
      prev: el("button", { type: "button", "class": "md-button", style: outlined,
        "aria-label": "Previous step" }, "\u25c0 Previous"),
      next: el("button", { type: "button", "class": "md-button md-button--primary", style: hover,
        "aria-label": "Next step" }, "Next \u25b6"),
      last: el("button", { type: "button", "class": "md-button", style: outlined,
        "aria-label": "End: jump to the epilogue" }, "End \u00bb")
    };
    var status = el("p", { "class": "ifig-readout", role: "status", "aria-live": "polite" });
    Object.keys(buttons).forEach(function (k) { controls.appendChild(buttons[k]); });
    controls.appendChild(status);
    var svg = svgEl("svg", { "class": "fig-svg", viewBox: "0 0 " + WIDE.w + " " + WIDE.h, role: "img",
      "aria-labelledby": idPrefix + "-strip-title " + idPrefix + "-strip-desc" });
    var table = el("table");  // no class: Material styles only class-less tables
    var scroll = el("div", { "class": "md-typeset__scrollwrap" });
    var tableWrap = el("div", { "class": "md-typeset__table" });
    tableWrap.appendChild(table);
    scroll.appendChild(tableWrap);
    table.appendChild(el("caption", {}, "State kept in registers for the query block (Softmax::row_max, row_sum and acc_o)"));
    var head = el("tr");
    ["query row", "block max", "running max m", "rescale \u03b1", "running sum \u2113",
     "O so far (acc_o / \u2113)"].forEach(function (h) { head.appendChild(el("th", { scope: "col" }, h)); });
    var thead = el("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    var tbody = el("tbody");
    table.appendChild(tbody);

    ui.appendChild(controls);
    ui.appendChild(svg);
    ui.appendChild(scroll);

    var fallback = root.querySelector(".ifig-static");
    if (fallback) fallback.hidden = true;
    var caption = root.querySelector("figcaption");
    root.insertBefore(ui, caption || null);

    var phone = window.matchMedia ? window.matchMedia("(max-width: 44.9375em)") : null;

    function render() {
      var s = stateAt(data, index);
      var narrow = !!(phone && phone.matches);
      drawStrip(svg, data, s, idPrefix, narrow ? NARROW : WIDE);
      root.setAttribute("data-layout", narrow ? "narrow" : "wide");
      fillTable(tbody, data, s);
      status.textContent = statusText(data, index, s);
      buttons.first.disabled = index === 0;
      buttons.prev.disabled = index === 0;
      buttons.next.disabled = index === last;
      buttons.last.disabled = index === last;
      root.setAttribute("data-step", String(index));
      root.setAttribute("data-total-steps", String(last));
      root.setAttribute("data-phase", s.phase);
      root.setAttribute("data-n-block", s.phase === "block" ? String(s.step.n_block) : "");
      root.setAttribute("data-m", attr(s.m));
      root.setAttribute("data-l", attr(s.l));
      root.setAttribute("data-alpha", attr(s.alpha.map(function (a) { return a === null ? "" : a; })));
    }

    function go(i) {
      index = Math.max(0, Math.min(last, i));
      render();
    }

    buttons.first.addEventListener("click", function () { go(0); });
    buttons.prev.addEventListener("click", function () { go(index - 1); });
    buttons.next.addEventListener("click", function () { go(index + 1); });
    buttons.last.addEventListener("click", function () { go(last); });
    root.addEventListener("keydown", function (ev) {
      if (ev.key === "ArrowRight") { go(index + 1); ev.preventDefault(); }
      if (ev.key === "ArrowLeft") { go(index - 1); ev.preventDefault(); }
    });

    if (phone && phone.addEventListener) phone.addEventListener("change", render);
    render();
    root.setAttribute("data-ifig-ready", "true");
  }

  if (window.IFIG && typeof window.IFIG.register === "function") {
    window.IFIG.register("online-softmax", init);
  }
})();
