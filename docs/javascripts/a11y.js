/* Accessibility fixes for markup Material adds in the browser (build-time ones are in
   mlblog/pages/markup.py): the copy-button bar of every code block is a <nav>, so a page with
   many code blocks has many unnamed navigation landmarks. They are not page regions: remove the
   landmark role (the copy button inside keeps its own name). Wide tables and equations scroll
   sideways inside boxes that keyboard users could not reach: those that scroll take focus.
   Cheap on long pages: at most one pass per frame however many changes arrive, each pass reads
   every size first and writes after, and nothing inside a part of the page the browser has not
   drawn yet (mlblog/pages/chunks.py) is measured, which would make it draw that part now.
   A box there that could scroll (an equation, a table) takes focus until it is drawn and measured,
   so the keyboard can always reach it; once measured, one that fits gives the focus up again. So
   does a code block until Material, which mounts it once on screen, decides. */
(function () {
  "use strict";
  if (window.__siteA11y) return window.__siteA11y(); // after an instant navigation: one observer
  const CHUNK = ".offscreen-chunk";
  const MAY_SCROLL = "div.arithmatex, div.md-typeset__scrollwrap";
  let queued = false;

  // Whether the browser draws the chunk now (it skips it again once the reader is far from it). A
  // browser without checkVisibility (Safari before 17.4) cannot skip chunks either: always drawn.
  function drawnNow(chunk, known) {
    if (!known.has(chunk)) {
      const first = chunk.firstElementChild;
      known.set(chunk, !first || typeof first.checkVisibility !== "function"
        || first.checkVisibility({ contentVisibilityAuto: true }));
    }
    return known.get(chunk);
  }

  // "Equation 3": the box's kind and its place among the page's boxes of that kind (distinct names).
  function name(box) {
    const [what, all] = box.classList.contains("arithmatex") ? ["Equation", "article div.arithmatex"]
      : box.querySelector("table") ? ["Table", "article div.md-typeset__scrollwrap"]
      : ["Figure", "article div:not(.arithmatex, .md-typeset__scrollwrap)"];
    return what + " " + ([...document.querySelectorAll(all)].indexOf(box) + 1);
  }

  // A box not measured yet is a named group that takes focus; one that scrolls is a region (a
  // landmark): only boxes known to scroll are listed among the page's landmarks.
  function focusable(box, label, state) {
    box.setAttribute("tabindex", "0");
    box.setAttribute("role", state === "scrolls" ? "region" : "group");
    box.setAttribute("aria-label", label);
    box.dataset.a11y = state;
  }

  function label() {
    queued = false;
    // Reads: which boxes scroll sideways (scrollWidth first: it rules out nearly all of them).
    const scrolling = [], fitting = [], undrawn = [], known = new Map();
    // Code blocks Material has not mounted yet (it mounts a block once on screen, content.lazy, and
    // then makes it focusable if it scrolls): one that scrolls now takes focus at once, one in a
    // chunk not drawn yet takes it until Material decides.
    const codeScrolling = [], codeUndrawn = [];
    document.querySelectorAll("article pre:not([id^='__code_']) > code:not([tabindex])").forEach((code) => {
      const chunk = code.closest(CHUNK);
      if (chunk && !drawnNow(chunk, known)) codeUndrawn.push(code);
      else if (code.scrollWidth > code.clientWidth + 1) codeScrolling.push(code);
    });
    document.querySelectorAll("article div:not(" + CHUNK + ")").forEach((box) => {
      const chunk = box.closest(CHUNK);
      if (chunk && !drawnNow(chunk, known)) {
        if (!box.hasAttribute("tabindex") && box.matches(MAY_SCROLL)) undrawn.push(box);
        return;
      }
      if (box.scrollWidth <= box.clientWidth + 1) {
        if (box.dataset.a11y) fitting.push(box);
        return;
      }
      const overflow = getComputedStyle(box).overflowX;
      if (overflow === "auto" || overflow === "scroll") scrolling.push(box);
    });
    // Writes.
    document.querySelectorAll("nav.md-code__nav:not([role])").forEach((nav) => nav.setAttribute("role", "none"));
    codeScrolling.concat(codeUndrawn).forEach((code) => code.setAttribute("tabindex", "0"));
    undrawn.forEach((box) => focusable(box, name(box), "unmeasured"));
    scrolling.forEach((box) => {
      if (box.hasAttribute("tabindex") && box.dataset.a11y !== "unmeasured") return;
      focusable(box, name(box) + " (scrolls sideways)", "scrolls");
    });
    fitting.forEach((box) => {
      // A box that has the focus keeps it until the reader moves on.
      if (box === document.activeElement) return box.addEventListener("blur", later, { once: true });
      ["tabindex", "role", "aria-label", "data-a11y"].forEach((a) => box.removeAttribute(a));
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
  // A chunk drawn (the reader scrolled near it, or moved the focus into it): measure its boxes.
  document.addEventListener("contentvisibilityautostatechange", (event) => {
    if (!event.skipped && event.target.matches(CHUNK)) later();
  }, true);
  // Fonts arriving can widen an equation past the column with no DOM change to observe.
  if (document.fonts) {
    document.fonts.addEventListener("loadingdone", later);
    document.fonts.ready.then(later);
  }
  later();
})();
