/* Interactive figures: <figure class="ifig" data-ifig="NAME"> elements hold a static fallback;
   docs/javascripts/ifig/NAME.js registers an initialiser with IFIG.register(NAME, init).
   core.js calls init(root) once per figure, on first load and after each instant navigation,
   then marks the figure live (class ifig--live), which hides its .ifig-static fallback. */
(function () {
  "use strict";
  if (window.IFIG) return; // run again after an instant navigation: keep the one registry
  const registry = new Map();

  function scan() {
    document.querySelectorAll("figure.ifig[data-ifig]").forEach((root) => {
      if (root.classList.contains("ifig--live")) return;
      const init = registry.get(root.dataset.ifig);
      if (!init) return;
      try {
        init(root);
        root.classList.add("ifig--live");
      } catch (err) {
        // Keep the static figure when a script fails; say why in the console.
        console.error("ifig " + root.dataset.ifig + ": " + err.message);
      }
    });
  }

  window.IFIG = {
    register(name, init) {
      registry.set(name, init);
      scan();
    },
    scan,
  };
  if (window.document$) window.document$.subscribe(scan);
  else document.addEventListener("DOMContentLoaded", scan);
})();
