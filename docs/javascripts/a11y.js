/* Accessibility fixes for markup Material adds in the browser (build-time ones are in
   hooks/label_landmarks.py): the copy-button bar of every code block is a <nav>, so a page with
   many code blocks has many unnamed navigation landmarks. They are not page regions: remove the
   landmark role (the copy button inside keeps its own name). Wide tables, equations and figures
   scroll sideways inside boxes that keyboard users could not reach. */
(function () {
  "use strict";
  if (window.__siteA11y) return; // run again after an instant navigation: one observer is enough
  window.__siteA11y = true;
  function label(root) {
    root.querySelectorAll("nav.md-code__nav:not([role])").forEach((nav) => {
      nav.setAttribute("role", "none");
    });
    // A wide table scrolls sideways inside its wrapper; keyboard users must be able to reach it.
    // Anything in the article that scrolls sideways (wide tables, long equations, wide figures on a
    // phone) must be reachable by keyboard. Regions need distinct names, so number them.
    let n = 0;
    root.querySelectorAll("article div").forEach((box) => {
      const overflow = getComputedStyle(box).overflowX;
      if ((overflow !== "auto" && overflow !== "scroll") || box.scrollWidth <= box.clientWidth + 1) return;
      n += 1;
      if (box.hasAttribute("tabindex")) return;
      const what = box.classList.contains("arithmatex") ? "Equation" : box.querySelector("table") ? "Table" : "Figure";
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", what + " " + n + " (scrolls sideways)");
    });
  }
  new MutationObserver(() => label(document)).observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", () => label(document));
  // KaTeX's fonts load after an equation is rendered and can widen it past the column with no DOM
  // change to observe, so look again once fonts have loaded.
  if (document.fonts) {
    document.fonts.addEventListener("loadingdone", () => label(document));
    document.fonts.ready.then(() => label(document));
  }
  label(document);
})();
