/*
 * Interactive figure "buffer-lifetimes" for the post "Torch.compile Deep Dive II — Inductor
 * Codegen and Buffer Lifetimes, End to End".
 *
 * The static content is a table written by examples/torch_compile_deep_dive_inductor/figures.py
 * from the captured wrapper of a real compile: one <tr data-line data-kind data-live-bytes
 * data-holders> per line of call(), where data-holders lists, per storage column, the buffer
 * name holding that storage after the line ("" when the storage is not allocated or freed).
 * Without JavaScript the table is the figure. With it, the figure becomes a stepper: the
 * wrapper's lines as a listing with the current line marked, one tile per storage showing who
 * holds it, a bar for the bytes those storages add up to, and Previous/Next/First/Last buttons.
 *
 * State for browser tests, on the <figure>:
 *   data-step        index of the current line (0-based)
 *   data-step-count  number of lines
 *   data-live-bytes  bytes held by the wrapper's own storages after the current line
 *   data-holders     comma-separated holders of each storage after the current line
 *   data-ifig-ready  "true" once built
 */
(function () {
  "use strict";

  function el(name, props, text) {
    var node = document.createElement(name);
    Object.keys(props || {}).forEach(function (k) { node.setAttribute(k, props[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  var STYLE_ID = "ifig-buffer-lifetimes-style";
  var SCOPE = '.ifig[data-ifig="buffer-lifetimes"] ';
  var CSS = [
    SCOPE + ".bl-button { display: inline-block; margin: 0; min-width: 2.4rem; padding: 0.2em 0.9em;",
    "  font: inherit; font-weight: 700; line-height: 1.6; cursor: pointer;",
    "  color: var(--md-typeset-a-color); background-color: var(--md-default-bg-color);",
    "  border: 0.1rem solid var(--md-typeset-a-color); border-radius: 0.1rem; }",
    SCOPE + ".bl-button--strong { color: var(--md-default-bg-color);",
    "  background-color: var(--md-typeset-a-color); }",
    SCOPE + ".bl-button:hover, " + SCOPE + ".bl-button:focus-visible {",
    "  text-decoration: underline; text-underline-offset: 0.2em; }",
    SCOPE + ".bl-button:focus-visible { outline: 0.15rem solid var(--md-typeset-a-color);",
    "  outline-offset: 0.15rem; }",
    SCOPE + ".bl-button:disabled { cursor: default; text-decoration: none; opacity: 0.5; }",
    SCOPE + ".bl-code { text-align: left; max-height: 16rem; overflow: auto; margin: 0.4rem 0; padding: 0.3rem 0;",
    "  border: 1px solid var(--md-default-fg-color--lightest); font-size: 0.7rem; }",
    SCOPE + ".bl-code div { white-space: pre; padding: 0 0.5rem; font-family: var(--md-code-font-family); }",
    SCOPE + '.bl-code div[aria-current="step"] { font-weight: 700;',
    "  box-shadow: inset 0.25rem 0 0 var(--md-typeset-a-color);",
    "  background-color: var(--md-code-bg-color); }",
    SCOPE + ".bl-tiles { display: flex; flex-wrap: wrap; gap: 0.4rem; margin: 0.4rem 0; }",
    SCOPE + ".bl-tile { min-width: 4.6rem; padding: 0.2rem 0.4rem; border-radius: 0.2rem;",
    "  border: 1px solid var(--md-default-fg-color--lighter); font-size: 0.7rem; }",
    SCOPE + '.bl-tile[data-state="held"] { border-color: var(--md-typeset-a-color);',
    "  box-shadow: inset 0 -0.2rem 0 var(--md-typeset-a-color); }",
    SCOPE + ".bl-tile strong { display: block; font-family: var(--md-code-font-family); }",
    // On a phone: the four buttons in one row, the four tiles in one row, and each line of
    // call() wrapped under its number instead of scrolling sideways out of view.
    "@media screen and (max-width: 44.9375em) {",
    "  " + SCOPE + ".ifig-controls { display: grid; grid-template-columns: repeat(4, auto);",
    "    justify-content: space-between; gap: 0.3rem; }",
    "  " + SCOPE + ".bl-button { padding: 0.2em 0.45em; min-width: 0; }",
    "  " + SCOPE + ".bl-tiles { flex-wrap: nowrap; }",
    "  " + SCOPE + ".bl-tile { flex: 1 1 0; min-width: 0; }",
    "  " + SCOPE + ".bl-code div { white-space: pre-wrap; overflow-wrap: anywhere;",
    "    padding-left: 3.1em; text-indent: -2.6em; }",
    "}",
  ].join("\n");

  function addStyle() {
    if (document.getElementById(STYLE_ID)) return;
    var style = document.createElement("style");
    style.id = STYLE_ID;
    style.textContent = CSS;
    document.head.appendChild(style);
  }

  function init(root) {
    if (root.getAttribute("data-ifig-ready") === "true") return;
    var table = root.querySelector("table.bl-table");
    if (!table) return;
    var rows = Array.prototype.slice.call(table.querySelectorAll("tbody tr[data-line]"));
    if (rows.length === 0) return;
    addStyle();
    var heads = Array.prototype.slice.call(table.querySelectorAll("thead th"))
      .map(function (th) { return th.textContent; });
    var storages = heads.slice(3, heads.length - 1);
    var steps = rows.map(function (tr) {
      var cells = tr.querySelectorAll("td");
      return {
        code: cells[1].textContent,
        event: cells[2].textContent,
        kind: tr.getAttribute("data-kind"),
        bytes: Number(tr.getAttribute("data-live-bytes")),
        holders: tr.getAttribute("data-holders").split(","),
      };
    });
    var peak = Math.max.apply(null, steps.map(function (s) { return s.bytes; })) || 1;
    var index = 0;

    var ui = el("div", { "class": "ifig-ui" });
    var nav = el("div", { "class": "ifig-controls", role: "group",
      "aria-label": "Step through the lines of call()" });
    var first = el("button", { type: "button", "class": "bl-button", "aria-label": "First line" },
      "\u00ab First");
    var prev = el("button", { type: "button", "class": "bl-button", "aria-label": "Previous line" },
      "\u25c0 Previous");
    var next = el("button", { type: "button", "class": "bl-button bl-button--strong",
      "aria-label": "Next line" }, "Next \u25b6");
    var last = el("button", { type: "button", "class": "bl-button", "aria-label": "Last line" },
      "Last \u00bb");
    [first, prev, next, last].forEach(function (b) { nav.appendChild(b); });

    var code = el("div", { "class": "bl-code", role: "list", tabindex: "0",
      "aria-label": "The generated call() function, one line per step" });
    var lineEls = steps.map(function (s, i) {
      var d = el("div", { role: "listitem" }, String(i).padStart(2, " ") + "  " + s.code);
      code.appendChild(d);
      return d;
    });
    var tiles = el("div", { "class": "bl-tiles", role: "group",
      "aria-label": "Storages the wrapper allocated, and which buffer name holds each" });
    var tileEls = storages.map(function (sid) {
      var t = el("div", { "class": "bl-tile" });
      t.appendChild(el("span", {}, sid));
      t.appendChild(el("strong", {}, "\u00b7"));
      tiles.appendChild(t);
      return t;
    });
    var bar = el("div", { "class": "ifig-bar", role: "img" });
    var fill = el("div", { "class": "ifig-bar__fill" });
    bar.appendChild(fill);
    var status = el("p", { "class": "ifig-status ifig-readout", role: "status",
      "aria-live": "polite" });

    ui.appendChild(nav);
    ui.appendChild(code);
    ui.appendChild(tiles);
    ui.appendChild(bar);
    ui.appendChild(status);
    var fallback = root.querySelector(".ifig-static");
    fallback.parentNode.insertBefore(ui, fallback);

    function go(i) {
      index = Math.max(0, Math.min(steps.length - 1, i));
      var s = steps[index];
      lineEls.forEach(function (d, k) {
        if (k === index) d.setAttribute("aria-current", "step");
        else d.removeAttribute("aria-current");
      });
      var cur = lineEls[index];
      code.scrollTop = Math.max(0, cur.offsetTop - code.offsetTop - code.clientHeight / 2);
      tileEls.forEach(function (t, k) {
        var who = s.holders[k] || "";
        t.setAttribute("data-state", who ? "held" : "free");
        t.querySelector("strong").textContent = who || "\u00b7";
      });
      fill.style.width = (100 * s.bytes / peak).toFixed(1) + "%";
      bar.setAttribute("aria-label", s.bytes + " bytes held of a peak of " + peak);
      first.disabled = prev.disabled = index === 0;
      next.disabled = last.disabled = index === steps.length - 1;
      status.textContent = "Line " + index + " of " + (steps.length - 1) + " (" + s.kind + "): " +
        s.event + ". Wrapper storages hold " + s.bytes + " bytes.";
      root.setAttribute("data-step", String(index));
      root.setAttribute("data-step-count", String(steps.length));
      root.setAttribute("data-live-bytes", String(s.bytes));
      root.setAttribute("data-holders", s.holders.join(","));
    }

    first.addEventListener("click", function () { go(0); });
    prev.addEventListener("click", function () { go(index - 1); });
    next.addEventListener("click", function () { go(index + 1); });
    last.addEventListener("click", function () { go(steps.length - 1); });
    code.addEventListener("keydown", function (ev) {
      var to = null;
      if (ev.key === "ArrowDown") to = index + 1;
      else if (ev.key === "ArrowUp") to = index - 1;
      else if (ev.key === "Home") to = 0;
      else if (ev.key === "End") to = steps.length - 1;
      if (to === null) return;
      ev.preventDefault();
      go(to);
    });

    go(0);
    root.setAttribute("data-ifig-ready", "true");
  }

  if (window.IFIG && typeof window.IFIG.register === "function") {
    window.IFIG.register("buffer-lifetimes", init);
  }
})();
