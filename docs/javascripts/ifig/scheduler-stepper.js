/*
 * Interactive figure "scheduler-stepper" for the post "vLLM v1 Deep Dive: How LLM(...) and the
 * Server Boot and Generate".
 *
 * One scheduler step at a time: how the step's token budget is split between prefill chunks,
 * decodes and recomputation after a preemption, which tokens came from the prefix cache, and the
 * state of every KV block (held by which requests, free, or free but still holding a cached
 * prefix). Nothing is computed here: every step is a record of scheduler-traces.json, written by
 * examples/vllm_v1_deep_dive/make_figures.py from the post's tested model (sched_model.py, whose
 * schedules and block tables the tests also get from vLLM's own Scheduler) and embedded in the
 * page as <script type="application/json" class="ss-traces">. The scenario list, the step buttons
 * and the readout are core.js's IFIG.stepper, shared with radix-stepper.js.
 *
 * Markup: <figure class="ifig" data-ifig="scheduler-stepper"> holding .ifig-static (every
 * scenario as a list), the JSON and a <figcaption>. State for tests, on the <figure>:
 * data-scenario, data-step (1-based), data-step-count, data-used, data-free, data-cached.
 */
(function () {
  "use strict";

  var STYLE_ID = "ifig-scheduler-stepper-style";
  var S = '.ifig[data-ifig="scheduler-stepper"] ';
  var CSS = [
    ".md-typeset figure.ifig--live" + S.replace(".ifig", "").trim() + " { width: 100%; }",
    S + ".ss-ui { width: 100%; text-align: left; font-size: 0.75rem; }",
    S + ".ss-field { display: flex; flex-wrap: wrap; align-items: center; gap: 0.3rem 0.6rem; }",
    S + "select { font: inherit; padding: 0.2em 0.3em; max-width: 100%;",
    "  color: var(--md-default-fg-color); background-color: var(--md-default-bg-color);",
    "  border: 1px solid var(--md-default-fg-color--light); border-radius: 0.1rem; }",
    S + "select:focus-visible { outline: 0.15rem solid var(--md-typeset-a-color); outline-offset: 0.15rem; }",
    S + ".md-button:disabled { cursor: default; opacity: 0.5; }",
    // The link colour, which meets the contrast minimum in both palettes (the primary does not).
    S + ".md-button:not(.md-button--primary) { color: var(--md-typeset-a-color);",
    "  border-color: var(--md-typeset-a-color); }",
    S + ".ss-step { margin: 0.4rem 0 0.2rem; font-weight: 700; }",
    S + ".ss-note { margin: 0 0 0.5rem; min-height: 4.5em; }",
    S + ".ss-panel { margin: 0.4rem 0; padding: 0.4rem 0.5rem; border-radius: 0.2rem;",
    "  border: 1px solid var(--md-default-fg-color--lightest); }",
    S + ".ss-head { margin: 0 0 0.3rem; font-weight: 700; font-variant-numeric: tabular-nums; }",
    S + ".ss-bar { display: flex; width: 100%; min-height: 1.8em; border-radius: 0.15rem; overflow: hidden;",
    "  border: 1px solid var(--md-default-fg-color--lighter); }",
    S + ".ss-seg { display: flex; flex: 0 0 auto; box-sizing: border-box; align-items: center;",
    "  justify-content: center; min-width: 0;",
    "  font-family: var(--md-code-font-family); font-weight: 700; overflow: hidden;",
    "  border-right: 1px solid var(--md-default-bg-color); }",
    S + '.ss-seg[data-kind="prefill"] { background-color: var(--fig-primary-tint);',
    "  box-shadow: inset 0 -0.2rem 0 var(--md-typeset-a-color); }",
    S + '.ss-seg[data-kind="decode"] { background-color: var(--fig-ok-tint);',
    "  box-shadow: inset 0 -0.2rem 0 var(--fig-ok); }",
    S + '.ss-seg[data-kind="recompute"] { background-color: var(--fig-warn-tint);',
    "  box-shadow: inset 0 -0.2rem 0 var(--fig-warn); }",
    S + '.ss-seg[data-kind="unused"] { background-color: transparent; }',
    S + ".ss-rows { margin: 0.3rem 0 0; padding-left: 1.1rem; font-variant-numeric: tabular-nums; }",
    S + ".ss-blocks { display: flex; flex-wrap: wrap; gap: 0.2rem; }",
    S + ".ss-block { min-width: 2.2rem; padding: 0.1rem 0.2rem; text-align: center; border-radius: 0.15rem;",
    "  font-family: var(--md-code-font-family); font-variant-numeric: tabular-nums; line-height: 1.3;",
    "  border: 1px solid var(--md-default-fg-color--lighter); }",
    S + ".ss-owner { display: block; font-weight: 700; min-height: 1.3em; }",
    S + '.ss-block[data-state="held"] { background-color: var(--fig-primary-tint);',
    "  border-color: var(--md-typeset-a-color); }",
    S + '.ss-block[data-state="cached"] { border-style: dashed; border-color: var(--fig-warn); }',
    S + ".ss-legend, " + S + ".ss-queue { margin: 0.3rem 0 0; }"
  ].join("\n");

  var el = window.IFIG && window.IFIG.el;

  // The same wording as make_figures.py's static list.
  function rowText(r) {
    return r.rid + ": " + r.tokens + " " + r.kind + (r.cached ? " (+" + r.cached + " cached)" : "");
  }

  function blockLabel(b) {
    var who = b.owners.length ? "held by " + b.owners.join(" and ") : b.state === "cached" ?
      "free, holds a cached prefix" : "free";
    return "block " + b.id + ": " + who;
  }

  function init(root) {
    var data = window.IFIG.setup(root, "ss-traces", STYLE_ID, CSS);
    if (!data) return;

    var controls = window.IFIG.stepper(root, data, { prefix: "ss", button: "md-button",
      strongButton: "md-button md-button--primary" });
    var ui = controls.ui;

    // A panel: a heading, the drawing, a list or line under it, and a legend.
    function panel(drawing, below, legend) {
      var box = el("div", { "class": "ss-panel" });
      var head = el("p", { "class": "ss-head" });
      [head, drawing, below, el("p", { "class": "ss-legend" }, legend)].forEach(function (n) {
        box.appendChild(n);
      });
      ui.appendChild(box);
      return head;
    }
    var bar = el("div", { "class": "ss-bar", role: "list", "aria-label": "This step's token budget" });
    var rows = el("ul", { "class": "ss-rows" });
    var budgetHead = panel(bar, rows, "Blue: prompt tokens (prefill). Green: decodes. Orange: " +
      "recomputed after a preemption. Cached tokens cost no budget.");
    var blocks = el("div", { "class": "ss-blocks", role: "list", "aria-label": "KV blocks" });
    var queue = el("p", { "class": "ss-queue" });
    var blockHead = panel(blocks, queue, "Filled: held by the requests named. Dashed: free, but " +
      "its prefix is still cached. Plain: free.");

    controls.start(function show(scenario, index) {
      var sc = data[scenario];
      var st = sc.steps[index];
      controls.stepLine.textContent = "Step " + (index + 1) + " of " + sc.steps.length;
      controls.note.textContent = st.note;
      budgetHead.textContent = "Token budget: " + st.used + " of " + sc.budget + " used";
      bar.textContent = "";
      st.rows.forEach(function (r) {
        var seg = el("span", { "class": "ss-seg", role: "listitem", "data-kind": r.kind,
          "data-tokens": String(r.tokens), "aria-label": rowText(r) }, r.rid);
        seg.style.width = (100 * r.tokens / sc.budget) + "%";
        bar.appendChild(seg);
      });
      if (st.used < sc.budget) {
        var rest = el("span", { "class": "ss-seg", role: "listitem", "data-kind": "unused",
          "data-tokens": String(sc.budget - st.used), "aria-label": (sc.budget - st.used) + " unused" });
        rest.style.width = (100 * (sc.budget - st.used) / sc.budget) + "%";
        bar.appendChild(rest);
      }
      rows.textContent = "";
      if (!st.rows.length) rows.appendChild(el("li", {}, "nothing scheduled"));
      st.rows.forEach(function (r) { rows.appendChild(el("li", { "class": "ss-row" }, rowText(r))); });

      var free = st.blocks.filter(function (b) { return b.state !== "held"; }).length;
      var cached = st.blocks.filter(function (b) { return b.state === "cached"; }).length;
      blockHead.textContent = "KV blocks while this step runs (" + sc.block_size + " tokens each): " + free + " of " +
        st.blocks.length + " free, " + cached + " of them cached";
      blocks.textContent = "";
      st.blocks.forEach(function (b) {
        var box = el("span", { "class": "ss-block", role: "listitem", "data-state": b.state,
          "aria-label": blockLabel(b) }, String(b.id));
        box.appendChild(el("span", { "class": "ss-owner" }, b.owners.join("+")));
        blocks.appendChild(box);
      });
      queue.textContent = "Waiting: " + (st.waiting.join(", ") || "none") + ". Finished after this step: " +
        (st.finished.join(", ") || "none") + ".";

      root.setAttribute("data-used", String(st.used));
      root.setAttribute("data-free", String(free));
      root.setAttribute("data-cached", String(cached));
    });
  }

  if (window.IFIG && typeof window.IFIG.register === "function") {
    window.IFIG.register("scheduler-stepper", init);
  }
})();
