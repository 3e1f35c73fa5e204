/* Math (KaTeX) and diagrams (Mermaid), served from the site itself and loaded only on pages that
   use them. Re-runs on every page shown, including Material's instant navigation (document$), and
   re-draws diagrams when the reader switches palette. */
(function () {
  "use strict";
  // assets/vendor/ relative to this script: javascripts/math-and-diagrams.js -> ../assets/vendor/
  const vendor = new URL("../assets/vendor/", document.currentScript.src).href;
  const loaded = {};

  function load(src, isStyle) {
    if (!loaded[src]) {
      loaded[src] = new Promise((resolve, reject) => {
        const el = document.createElement(isStyle ? "link" : "script");
        if (isStyle) { el.rel = "stylesheet"; el.href = vendor + src; } else { el.src = vendor + src; }
        el.onload = resolve;
        el.onerror = () => reject(new Error("could not load " + src));
        document.head.appendChild(el);
      });
    }
    return loaded[src];
  }

  // pymdownx.arithmatex (generic mode) leaves \( .. \) and \[ .. \] inside .arithmatex elements.
  function renderMath(root) {
    const nodes = root.querySelectorAll(".arithmatex:not([data-math-done])");
    if (!nodes.length) return;
    Promise.all([load("katex/katex.min.css", true), load("katex/katex.min.js")]).then(() => {
      nodes.forEach((el) => {
        const tex = el.textContent.trim();
        const display = tex.startsWith("\\[") || el.tagName === "DIV";
        const body = tex.replace(/^\\[\[(]/, "").replace(/\\[\])]$/, "");
        window.katex.render(body, el, { displayMode: display, throwOnError: false, output: "htmlAndMathml" });
        el.setAttribute("data-math-done", "");
      });
    }).catch((err) => console.warn(err.message));
  }

  function scheme() {
    return document.body.getAttribute("data-md-color-scheme") === "slate" ? "dark" : "default";
  }

  // ```mermaid fences become <pre class="mermaid-diagram"><code>source</code></pre> (mkdocs.yml).
  function renderDiagrams(root, force) {
    const nodes = Array.from(root.querySelectorAll(".mermaid-diagram"));
    if (!nodes.length) return;
    load("mermaid/mermaid.min.js").then(async () => {
      window.mermaid.initialize({ startOnLoad: false, theme: scheme(), securityLevel: "strict" });
      for (const [i, el] of nodes.entries()) {
        if (el.hasAttribute("data-diagram-done") && !force) continue;
        if (!el.dataset.source) el.dataset.source = el.textContent;
        const { svg } = await window.mermaid.render("mermaid-" + Date.now() + "-" + i, el.dataset.source);
        el.innerHTML = svg;
        el.setAttribute("data-diagram-done", "");
        el.setAttribute("data-diagram-theme", scheme());
      }
    }).catch((err) => console.warn(err.message));
  }

  function render() {
    renderMath(document);
    renderDiagrams(document, false);
  }

  if (window.document$) window.document$.subscribe(render);
  else document.addEventListener("DOMContentLoaded", render);
  new MutationObserver(() => renderDiagrams(document, true))
    .observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
})();
