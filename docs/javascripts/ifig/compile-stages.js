/*
 * Interactive figure "compile-stages" for the post "Torch.compile 101 - From Python Function to
 * Triton Kernel".
 *
 * The figure's static content is every stage that torch.compile produced for rms_norm, one
 * <section class="ifig-stage" data-stage="ID" data-label="TAB" aria-label="TITLE"> each, holding
 * a one-line "What changed" note (<p class="ifig-stage-note">) and a plain <pre><code> block.
 * examples/torch_compile_101/stages.py writes that HTML from
 * stages.json (which it captures from a real compile; the tests regenerate both). Without
 * JavaScript every stage shows, one after the other. With it, the sections become tab panels:
 * one row of tab buttons (arrow keys, Home and End move between them), Previous/Next buttons and
 * a status line that is announced to screen readers.
 *
 * Colours: the buttons do not use Material's .md-button, whose hover/focus colours (white on the
 * accent colour) and dark-palette text (indigo on slate) fall below WCAG AA contrast. A small
 * style sheet, added once, draws them with Material's own variables instead: link colour
 * (--md-typeset-a-color) on the page background (--md-default-bg-color), and the two swapped for
 * the selected tab and the Next button. Both pairs are above 4.5:1 in both palettes (light:
 * #4051b5 and white; dark: the site's #a9b4ff and slate). Hover and keyboard focus add an
 * underline and an outline and never change the colours.
 *
 * State for browser tests, on the <figure>:
 *   data-stage        id of the stage shown (e.g. "dynamo_graph")
 *   data-stage-index  its position, 0-based
 *   data-stage-count  number of stages
 *   data-ifig-ready   "true" once built
 */
(function () {
  "use strict";

  function el(name, props, text) {
    var node = document.createElement(name);
    Object.keys(props || {}).forEach(function (k) { node.setAttribute(k, props[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  var STYLE_ID = "ifig-compile-stages-style";
  var CSS = [
    '.ifig[data-ifig="compile-stages"] .cs-button {',
    "  display: inline-block; margin: 0; min-width: 2.4rem; padding: 0.2em 0.9em;",
    "  font: inherit; font-weight: 700; line-height: 1.6; cursor: pointer;",
    "  color: var(--md-typeset-a-color); background-color: var(--md-default-bg-color);",
    "  border: 0.1rem solid var(--md-typeset-a-color); border-radius: 0.1rem; }",
    '.ifig[data-ifig="compile-stages"] .cs-button[aria-selected="true"],',
    '.ifig[data-ifig="compile-stages"] .cs-button--strong {',
    "  color: var(--md-default-bg-color); background-color: var(--md-typeset-a-color); }",
    '.ifig[data-ifig="compile-stages"] .cs-button:hover,',
    '.ifig[data-ifig="compile-stages"] .cs-button:focus-visible {',
    "  text-decoration: underline; text-underline-offset: 0.2em; }",
    '.ifig[data-ifig="compile-stages"] .cs-button:focus-visible {',
    "  outline: 0.15rem solid var(--md-typeset-a-color); outline-offset: 0.15rem; }",
    '.ifig[data-ifig="compile-stages"] .cs-button:disabled {',
    "  cursor: default; text-decoration: none; opacity: 0.5; }",
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
    var sections = Array.prototype.slice.call(
      root.querySelectorAll("section.ifig-stage[data-stage]"));
    if (sections.length === 0) return;
    addStyle();
    var container = sections[0].parentNode;
    var prefix = root.id || "compile-stages";
    var index = 0;

    var tablist = el("div", { "class": "ifig-controls ifig-tabs", role: "tablist",
      "aria-label": "Stages of torch.compile" });
    var tabs = sections.map(function (section, i) {
      var stage = section.getAttribute("data-stage");
      var label = section.getAttribute("data-label") || stage;
      var panelId = prefix + "-panel-" + stage;
      var tabId = prefix + "-tab-" + stage;
      section.id = panelId;
      section.setAttribute("role", "tabpanel");
      section.setAttribute("aria-labelledby", tabId);
      section.setAttribute("tabindex", "0");
      var pre = section.querySelector("pre");
      if (pre) { pre.style.maxHeight = "34rem"; pre.style.overflow = "auto"; }
      var tab = el("button", { type: "button", role: "tab", id: tabId, "class": "cs-button",
        "aria-controls": panelId, "aria-selected": "false", tabindex: "-1",
        "data-stage": stage, title: section.getAttribute("aria-label") || label },
        (i + 1) + ". " + label);
      tab.addEventListener("click", function () { go(i, false); });
      tablist.appendChild(tab);
      return tab;
    });

    var nav = el("div", { "class": "ifig-controls", role: "group",
      "aria-label": "Step through the stages in the order they run" });
    var prev = el("button", { type: "button", "class": "cs-button",
      "aria-label": "Previous stage" }, "\u25c0 Previous");
    var next = el("button", { type: "button", "class": "cs-button cs-button--strong",
      "aria-label": "Next stage" }, "Next \u25b6");
    nav.appendChild(prev);
    nav.appendChild(next);
    var status = el("p", { "class": "ifig-status", role: "status", "aria-live": "polite" });

    var ui = el("div", { "class": "ifig-ui" });
    ui.appendChild(tablist);
    ui.appendChild(nav);
    ui.appendChild(status);
    container.parentNode.insertBefore(ui, container);

    function go(i, focusTab) {
      index = Math.max(0, Math.min(sections.length - 1, i));
      sections.forEach(function (section, k) { section.hidden = k !== index; });
      tabs.forEach(function (tab, k) {
        var on = k === index;
        tab.setAttribute("aria-selected", on ? "true" : "false");
        tab.setAttribute("tabindex", on ? "0" : "-1");
      });
      if (focusTab) tabs[index].focus();
      prev.disabled = index === 0;
      next.disabled = index === sections.length - 1;
      var section = sections[index];
      status.textContent = "Stage " + (index + 1) + " of " + sections.length + ": " +
        (section.getAttribute("aria-label") || section.getAttribute("data-stage")) + ".";
      root.setAttribute("data-stage", section.getAttribute("data-stage"));
      root.setAttribute("data-stage-index", String(index));
      root.setAttribute("data-stage-count", String(sections.length));
    }

    prev.addEventListener("click", function () { go(index - 1, false); });
    next.addEventListener("click", function () { go(index + 1, false); });
    tablist.addEventListener("keydown", function (ev) {
      var to = null;
      if (ev.key === "ArrowRight") to = index + 1;
      else if (ev.key === "ArrowLeft") to = index - 1;
      else if (ev.key === "Home") to = 0;
      else if (ev.key === "End") to = sections.length - 1;
      if (to === null) return;
      ev.preventDefault();
      go(to, true);
    });

    go(0, false);
    root.setAttribute("data-ifig-ready", "true");
  }

  if (window.IFIG && typeof window.IFIG.register === "function") {
    window.IFIG.register("compile-stages", init);
  }
})();
