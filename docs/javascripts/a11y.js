/* Accessibility fixes for markup Material adds in the browser (build-time ones are in
   hooks/label_landmarks.py): the copy-button bar of every code block is a <nav>, so a page with
   many code blocks has many unnamed navigation landmarks. They are not page regions: remove the
   landmark role (the copy button inside keeps its own name). */
(function () {
  "use strict";
  function label(root) {
    root.querySelectorAll("nav.md-code__nav:not([role])").forEach((nav) => {
      nav.setAttribute("role", "none");
    });
  }
  new MutationObserver(() => label(document)).observe(document.body, { childList: true, subtree: true });
  label(document);
})();
