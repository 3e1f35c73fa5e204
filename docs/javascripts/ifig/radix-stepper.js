/*
 * Interactive figure "radix-stepper" for the post "SGLang Deep Dive: How Engine.generate() Boots
 * and Runs".
 *
 * Requests arrive, match a prefix in the radix tree (at most input_len - 1 tokens), lock it, get
 * KV-pool slots (evicting unlocked leaves, least recently used first, when the pool is short),
 * checkpoint what a prefill computed and release what a finished request holds. Nothing is
 * computed here: every step is a record of examples/sglang_deep_dive/radix-traces.json, written by
 * figures.py from the post's tested model (radix.py, which the tests also run against SGLang's own
 * RadixCache) and embedded in the page as <script type="application/json" class="rs-traces">.
 * This script draws a record: the tree as nested lists, the pool's slots, the live requests.
 *
 * Markup: <figure class="ifig" data-ifig="radix-stepper"> holding .ifig-static (the first
 * scenario as a list of steps), the JSON and a <figcaption>. State for tests, on the <figure>:
 * data-scenario, data-step (1-based), data-step-count, data-evictable, data-protected, data-free.
 */
(function () {
  "use strict";

  var STYLE_ID = "ifig-radix-stepper-style";
  var S = '.ifig[data-ifig="radix-stepper"] ';
  var CSS = [
    ".md-typeset figure.ifig--live" + S.replace(".ifig", "").trim() + " { width: 100%; }",
    S + ".rs-ui { width: 100%; text-align: left; font-size: 0.75rem; }",
    S + ".rs-field { display: flex; flex-wrap: wrap; align-items: center; gap: 0.3rem 0.6rem; }",
    S + "select { font: inherit; padding: 0.2em 0.3em; max-width: 100%;",
    "  color: var(--md-default-fg-color); background-color: var(--md-default-bg-color);",
    "  border: 1px solid var(--md-default-fg-color--light); border-radius: 0.1rem; }",
    S + ".rs-button { margin: 0; min-width: 2.4rem; min-height: 2.2em; padding: 0.2em 0.8em;",
    "  font: inherit; font-weight: 700; cursor: pointer; color: var(--md-typeset-a-color);",
    "  background-color: var(--md-default-bg-color); border: 0.1rem solid var(--md-typeset-a-color);",
    "  border-radius: 0.1rem; }",
    S + ".rs-button--strong { color: var(--md-default-bg-color); background-color: var(--md-typeset-a-color); }",
    S + ".rs-button:hover, " + S + ".rs-button:focus-visible { text-decoration: underline;",
    "  text-underline-offset: 0.2em; }",
    S + ".rs-button:focus-visible, " + S + "select:focus-visible {",
    "  outline: 0.15rem solid var(--md-typeset-a-color); outline-offset: 0.15rem; }",
    S + ".rs-button:disabled { cursor: default; text-decoration: none; opacity: 0.5; }",
    S + ".rs-step { margin: 0.4rem 0 0.2rem; font-weight: 700; }",
    S + ".rs-note { margin: 0 0 0.5rem; min-height: 4.5em; }",
    S + ".rs-panel { margin: 0.4rem 0; padding: 0.4rem 0.5rem; border-radius: 0.2rem;",
    "  border: 1px solid var(--md-default-fg-color--lightest); }",
    S + ".rs-head { margin: 0 0 0.3rem; font-weight: 700; }",
    S + ".rs-tree, " + S + ".rs-tree ul { list-style: none; margin: 0; padding: 0; }",
    S + ".rs-tree ul { margin-left: 0.9rem; padding-left: 0.5rem;",
    "  border-left: 1px solid var(--md-default-fg-color--lighter); }",
    S + ".rs-tree li { margin: 0.2rem 0; }",
    S + ".rs-node { display: inline-flex; flex-wrap: wrap; align-items: baseline; gap: 0 0.4rem;",
    "  padding: 0.05rem 0.4rem; border-radius: 0.2rem; border: 1px solid var(--md-default-fg-color--lighter); }",
    S + '.rs-node[data-locked="true"] { border-color: var(--md-typeset-a-color);',
    "  box-shadow: inset 0.2rem 0 0 var(--md-typeset-a-color); }",
    S + '.rs-node[data-rank="1"] { border-style: dashed; border-color: var(--fig-warn); }',
    S + ".rs-key { font-family: var(--md-code-font-family); font-weight: 700; }",
    S + ".rs-badge { font-variant-numeric: tabular-nums; }",
    S + ".rs-pool { display: flex; flex-wrap: wrap; gap: 0.2rem; }",
    S + ".rs-slot { min-width: 1.6rem; padding: 0.1rem 0; text-align: center; border-radius: 0.15rem;",
    "  font-family: var(--md-code-font-family); font-variant-numeric: tabular-nums;",
    "  border: 1px solid var(--md-default-fg-color--lighter); }",
    S + '.rs-slot[data-state="tree"] { background-color: var(--fig-primary-tint);',
    "  border-color: var(--md-typeset-a-color); }",
    S + '.rs-slot[data-state="req"] { background-color: var(--fig-warn-tint); border-color: var(--fig-warn);',
    "  border-style: dashed; }",
    S + ".rs-legend { margin: 0.3rem 0 0; }",
    S + ".rs-reqs { margin: 0; padding-left: 1.1rem; }",
    S + ".rs-sizes { margin: 0.3rem 0 0; font-variant-numeric: tabular-nums; }"
  ].join("\n");

  var el = window.IFIG && window.IFIG.el;

  // Slots as runs, as radix.span() writes them: [0, 1, 2, 5] -> "0–2, 5".
  function span(slots) {
    var runs = [];
    slots.forEach(function (s) {
      var last = runs[runs.length - 1];
      if (last && s === last[1] + 1) last[1] = s;
      else runs.push([s, s]);
    });
    return runs.map(function (r) { return r[0] === r[1] ? String(r[0]) : r[0] + "\u2013" + r[1]; })
      .join(", ") || "none";
  }

  function nodeLabel(n) {
    var badge = n.lock ? "lock " + n.lock : n.rank ? "evict #" + n.rank : "";
    return { key: "\u201c" + n.key + "\u201d", slots: "slots " + span(n.slots), badge: badge };
  }

  function drawTree(list, nodes) {
    nodes.forEach(function (n) {
      var li = el("li");
      var label = nodeLabel(n);
      var box = el("span", { "class": "rs-node", "data-locked": String(n.lock > 0),
        "data-rank": String(n.rank) });
      box.appendChild(el("span", { "class": "rs-key" }, label.key));
      box.appendChild(el("span", { "class": "rs-slots" }, label.slots));
      if (label.badge) box.appendChild(el("span", { "class": "rs-badge" }, label.badge));
      li.appendChild(box);
      if (n.children.length) {
        var ul = el("ul");
        drawTree(ul, n.children);
        li.appendChild(ul);
      }
      list.appendChild(li);
    });
  }

  function init(root) {
    var data = window.IFIG.setup(root, "rs-traces", STYLE_ID, CSS);
    if (!data) return;

    var controls = window.IFIG.stepper(root, data, { prefix: "rs", button: "rs-button",
      strongButton: "rs-button rs-button--strong" });
    var ui = controls.ui;

    var treePanel = el("div", { "class": "rs-panel" });
    treePanel.appendChild(el("p", { "class": "rs-head" }, "Radix tree"));
    var tree = el("ul", { "class": "rs-tree", "aria-label": "The radix tree after this step" });
    treePanel.appendChild(tree);
    var sizes = el("p", { "class": "rs-sizes" });
    treePanel.appendChild(sizes);
    ui.appendChild(treePanel);

    var poolPanel = el("div", { "class": "rs-panel" });
    var poolHead = el("p", { "class": "rs-head" });
    poolPanel.appendChild(poolHead);
    var pool = el("div", { "class": "rs-pool", role: "list", "aria-label": "KV pool slots" });
    poolPanel.appendChild(pool);
    poolPanel.appendChild(el("p", { "class": "rs-legend" },
      "Solid: held by a tree node. Dashed: only in a running request's row. Plain: free."));
    ui.appendChild(poolPanel);

    var reqPanel = el("div", { "class": "rs-panel" });
    reqPanel.appendChild(el("p", { "class": "rs-head" }, "Running requests"));
    var reqs = el("ul", { "class": "rs-reqs" });
    reqPanel.appendChild(reqs);
    ui.appendChild(reqPanel);

    controls.start(function show(scenario, index) {
      var sc = data[scenario];
      var st = sc.steps[index];
      controls.stepLine.textContent = "Step " + (index + 1) + " of " + sc.steps.length + ": " + st.event + " " +
        st.rids.join(", ");
      controls.note.textContent = st.note;
      tree.textContent = "";
      if (st.tree.length) drawTree(tree, st.tree);
      else tree.appendChild(el("li", { "class": "rs-empty" }, "(empty)"));
      var free = st.slots.filter(function (s) { return s === "free"; }).length;
      sizes.textContent = "Evictable " + st.evictable + " tokens \u00b7 protected " + st.protected + " tokens";
      poolHead.textContent = "KV pool: " + sc.pool + " slots, " + free + " free";
      pool.textContent = "";
      st.slots.forEach(function (state, slot) {
        pool.appendChild(el("span", { "class": "rs-slot", role: "listitem", "data-state": state,
          "aria-label": "slot " + slot + ": " + state }, String(slot)));
      });
      reqs.textContent = "";
      if (!st.requests.length) reqs.appendChild(el("li", {}, "none"));
      st.requests.forEach(function (r) {
        reqs.appendChild(el("li", { "class": "rs-req" }, r.rid + ": \u201c" + r.text + "\u201d, reused " + r.hit +
          ", row " + span(r.row)));
      });
      root.setAttribute("data-evictable", String(st.evictable));
      root.setAttribute("data-protected", String(st.protected));
      root.setAttribute("data-free", String(free));
    });
  }

  if (window.IFIG && typeof window.IFIG.register === "function") {
    window.IFIG.register("radix-stepper", init);
  }
})();
