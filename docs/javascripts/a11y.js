/* Accessibility fixes for markup Material adds in the browser (build-time ones are in
   hooks/label_landmarks.py): the copy-button bar of every code block is a <nav>, so a page with
   many code blocks has many unnamed navigation landmarks. They are not page regions: remove the
   landmark role (the copy button inside keeps its own name). Wide tables, equations and figures
   scroll sideways inside boxes that keyboard users could not reach.
   Cheap on long pages: at most one pass per frame however many changes arrive, and each pass reads
   every size first and writes after, so the page is laid out once, not once per box. */
(function () {
  "use strict";
  if (window.__siteA11y) return window.__siteA11y(); // after an instant navigation: one observer
  let queued = false;
  function label() {
    queued = false;
    // Reads: which boxes scroll sideways (scrollWidth first: it rules out nearly all of them). Prose
    // chunks hold nothing that scrolls (hooks/skip_offscreen_layout.py), and measuring inside one
    // the browser is skipping would force it to lay the chunk out.
    const scrolling = [];
    document.querySelectorAll("article div:not(.offscreen-chunk, .offscreen-chunk div)").forEach((box) => {
      if (box.scrollWidth <= box.clientWidth + 1) return;
      const overflow = getComputedStyle(box).overflowX;
      if (overflow === "auto" || overflow === "scroll") scrolling.push(box);
    });
    // Writes. Regions need distinct names, so number them.
    document.querySelectorAll("nav.md-code__nav:not([role])").forEach((nav) => nav.setAttribute("role", "none"));
    scrolling.forEach((box, i) => {
      if (box.hasAttribute("tabindex")) return;
      const what = box.classList.contains("arithmatex") ? "Equation" : box.querySelector("table") ? "Table" : "Figure";
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", what + " " + (i + 1) + " (scrolls sideways)");
    });
  }
  function later() {
    if (queued) return;
    queued = true;
    requestAnimationFrame(label);
  }
  window.__siteA11y = later;
  new MutationObserver(later).observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", later);
  // Fonts arriving can widen an equation past the column with no DOM change to observe.
  if (document.fonts) {
    document.fonts.addEventListener("loadingdone", later);
    document.fonts.ready.then(later);
  }
  later();
})();
