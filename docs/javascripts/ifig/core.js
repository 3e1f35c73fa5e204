/* Interactive figures: <figure class="ifig" data-ifig="NAME"> elements hold a static fallback;
   docs/javascripts/ifig/NAME.js registers an initialiser with IFIG.register(NAME, init).
   core.js calls init(root) once per figure, on first load and after each instant navigation,
   then marks the figure live (class ifig--live), which hides its .ifig-static fallback.

   A page lists only this script; it loads NAME.js for each figure on the page, from beside itself,
   once. Material's instant navigation inserts the new page's scripts all at once and each runs
   when it arrives, so a page that listed NAME.js too would run it before this file as often as
   not (mlblog/pages/scripts.py). */
(function () {
  "use strict";
  if (window.IFIG) return; // run again after an instant navigation: keep the one registry
  const registry = new Map();
  // Where the figures' scripts are: beside this file (none when it runs inline, as in a test page
  // that carries the figure's script itself).
  const here = document.currentScript && document.currentScript.src;
  const base = here ? new URL(".", here) : null;
  const requested = new Set();

  function load(name) {
    if (!base || requested.has(name) || !/^[a-z0-9-]+$/.test(name)) return;
    requested.add(name);
    const script = document.createElement("script");
    script.src = new URL(name + ".js", base).href;
    document.body.appendChild(script);
  }

  function scan() {
    document.querySelectorAll("figure.ifig[data-ifig]").forEach((root) => {
      if (root.classList.contains("ifig--live")) return;
      const init = registry.get(root.dataset.ifig);
      if (!init) {
        load(root.dataset.ifig);
        return;
      }
      try {
        init(root);
        root.classList.add("ifig--live");
        // figure-zoom.js measures the new drawing (it may have looked before the figure was live).
        root.dispatchEvent(new CustomEvent("ifig:live", { bubbles: true }));
      } catch (err) {
        // Keep the static figure when a script fails; say why in the console.
        console.error("ifig " + root.dataset.ifig + ": " + err.message);
      }
    });
  }

  function el(name, props, text) {
    const node = document.createElement(name);
    Object.keys(props || {}).forEach((k) => node.setAttribute(k, props[k]));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* A figure's data as written: the text of its data element's data-json (the build moves a post's
     <script type="application/json" class="...">, mlblog/pages/markup.py inert_figure_data), or
     of the script itself where no build pass ran. */
  function json(source) {
    return source.dataset.json !== undefined ? source.dataset.json : source.textContent;
  }

  /* A figure's data, parsed from its <script type="application/json" class="DATA_CLASS">, with
     its stylesheet added to the page once; null when the figure is already live or has none. */
  function setup(root, dataClass, styleId, css) {
    if (root.getAttribute("data-ifig-ready") === "true") return null;
    const source = root.querySelector("." + dataClass);
    if (!source) return null;
    const data = JSON.parse(json(source));
    if (!document.getElementById(styleId)) {
      const style = el("style", { id: styleId });
      style.textContent = css;
      document.head.appendChild(style);
    }
    return data;
  }

  /* The controls of a scenario stepper (radix-stepper, scheduler-stepper): a scenario list,
     First / Previous / Next / Last and a spoken readout, in a new <div class="PREFIX-ui">.
     data maps a scenario name to {title, steps}. The figure adds its panels to .ui, then calls
     start(show): show(name, index) draws that step. The stepper keeps the buttons' disabled
     state and the keyboard focus, and the figure's data-scenario, data-step and
     data-step-count. opts: prefix, button (class), strongButton (class of Next). */
  function stepper(root, data, opts) {
    const p = opts.prefix;
    const names = Object.keys(data);
    const ui = el("div", { class: p + "-ui" });
    const field = el("label", { class: p + "-field" }, "Scenario ");
    const select = el("select", { "aria-label": "Scenario" });
    names.forEach((name) => select.appendChild(el("option", { value: name }, data[name].title)));
    field.appendChild(select);
    const nav = el("div", { class: "ifig-controls", role: "group", "aria-label": "Step through the scenario" });
    const [first, prev, next, last] = [
      ["First step", "\u00ab First"], ["Previous step", "\u25c0 Previous"],
      ["Next step", "Next \u25b6"], ["Last step", "Last \u00bb"],
    ].map(([label, text]) => el("button", {
      type: "button", class: label === "Next step" ? opts.strongButton : opts.button, "aria-label": label,
    }, text));
    nav.append(first, prev, next, last);
    const stepLine = el("p", { class: p + "-step" });
    const note = el("p", { class: p + "-note ifig-readout", role: "status", "aria-live": "polite" });
    ui.append(field, nav, stepLine, note);
    let scenario = names[0];
    let index = 0;
    let draw = null;

    function go(i) {
      const count = data[scenario].steps.length;
      index = Math.max(0, Math.min(count - 1, i));
      draw(scenario, index);
      const focused = document.activeElement;
      first.disabled = prev.disabled = index === 0;
      next.disabled = last.disabled = index === count - 1;
      // A button that just became disabled drops the keyboard focus: hand it to the other end.
      if (focused && focused.disabled) (focused === next || focused === last ? prev : next).focus();
      root.setAttribute("data-scenario", scenario);
      root.setAttribute("data-step", String(index + 1));
      root.setAttribute("data-step-count", String(count));
    }

    select.addEventListener("change", () => { scenario = select.value; go(0); });
    first.addEventListener("click", () => go(0));
    prev.addEventListener("click", () => go(index - 1));
    next.addEventListener("click", () => go(index + 1));
    last.addEventListener("click", () => go(data[scenario].steps.length - 1));
    return {
      ui, stepLine, note,
      start(show) {
        draw = show;
        root.insertBefore(ui, root.querySelector(".ifig-static"));
        go(0);
        root.setAttribute("data-ifig-ready", "true");
      },
    };
  }

  window.IFIG = {
    register(name, init) {
      registry.set(name, init);
      scan();
    },
    scan,
    el,
    json,
    setup,
    stepper,
  };
  if (window.document$) window.document$.subscribe(scan);
  else document.addEventListener("DOMContentLoaded", scan);
})();
