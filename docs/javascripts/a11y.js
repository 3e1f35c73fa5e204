/* Accessibility fixes for markup Material adds in the browser (build-time ones are in
   hooks/label_landmarks.py): the copy-button bar of every code block is a <nav>, so a page with
   many code blocks has many unnamed navigation landmarks. They are not page regions: remove the
   landmark role (the copy button inside keeps its own name). Wide tables scroll inside a wrapper
   that keyboard users could not reach. */
(function () {
  "use strict";
  function label(root) {
    root.querySelectorAll("nav.md-code__nav:not([role])").forEach((nav) => {
      nav.setAttribute("role", "none");
    });
    // A wide table scrolls sideways inside its wrapper; keyboard users must be able to reach it.
    root.querySelectorAll(".md-typeset__scrollwrap:not([tabindex])").forEach((wrap) => {
      if (wrap.scrollWidth > wrap.clientWidth) {
        wrap.setAttribute("tabindex", "0");
        wrap.setAttribute("role", "region");
        wrap.setAttribute("aria-label", "Table (scrolls sideways)");
      }
    });
  }
  new MutationObserver(() => label(document)).observe(document.body, { childList: true, subtree: true });
  label(document);
})();
