/* Figures readable on every screen. A figure's SVG scales to the column, so on a phone a wide
   diagram's labels can shrink to a few pixels. For every <figure class="fig"> (and every live
   interactive <figure class="ifig">, whose drawing keeps updating while open) whose smallest label
   would render under MIN_PX, a visible button "Open figure full size" appears under the drawing;
   it opens the drawing in a modal dialog at a size where every label is at least MIN_PX, in a box
   that scrolls both ways (by touch, or by keyboard: the box takes focus). Escape, the Close button
   or a click outside closes it and puts the drawing back. The SVG element itself is moved, never
   cloned, so its ids (markers, aria-labelledby) stay unique. State for tests: data-fig-zoom on the
   figure is "available" (button shown), "fits" (labels large enough) or "open". */
(function () {
  "use strict";
  if (window.__siteFigureZoom) return; // run again after an instant navigation: listen once
  window.__siteFigureZoom = true;
  const MIN_PX = 11;

  function smallestLabel(svg) {
    let min = Infinity;
    svg.querySelectorAll("text").forEach((t) => {
      const size = parseFloat(getComputedStyle(t).fontSize);
      if (size > 0 && size < min) min = size;
    });
    return min;
  }

  function viewBoxWidth(svg) {
    const vb = svg.viewBox && svg.viewBox.baseVal;
    return vb && vb.width ? vb.width : svg.getBoundingClientRect().width;
  }

  // The rendered size of the smallest label (CSS px): its font size in user units times the scale.
  function renderedLabel(svg) {
    return smallestLabel(svg) * (svg.getBoundingClientRect().width / viewBoxWidth(svg));
  }

  const FIGURES = "article figure.fig, article figure.ifig";

  // The drawing a reader sees: an interactive figure's static fallback is hidden once it is live,
  // and of a figure's wide and narrow drawings (fig-svg--narrow) only one is displayed.
  // Which one is displayed is read from style (checkVisibility), not from layout, so scanning a
  // page's figures at load does not lay out the parts the browser has skipped.
  function drawings(figure) {
    return [...figure.querySelectorAll("svg")].filter((svg) => !svg.closest(".ifig-static"));
  }

  function displayed(svg) {
    return svg.checkVisibility ? svg.checkVisibility() : svg.getClientRects().length > 0;
  }

  function drawing(figure) {
    const all = drawings(figure);
    return all.find(displayed) || all[0] || null;
  }

  function update(figure) {
    if (figure.dataset.figZoom === "open") return;
    const svg = drawing(figure);
    const button = figure.querySelector(":scope > .fig-zoom__open");
    if (!svg || !button) return;
    const small = renderedLabel(svg) < MIN_PX - 0.05;
    button.hidden = !small;
    figure.dataset.figZoom = small ? "available" : "fits";
  }

  function open(figure, button) {
    const svg = drawing(figure);
    const min = smallestLabel(svg);
    const width = Math.ceil(viewBoxWidth(svg) * Math.max(1, MIN_PX / min));
    const title = svg.querySelector("title");
    const placeholder = document.createComment("fig-zoom");
    const dialog = document.createElement("dialog");
    dialog.className = "fig-zoom md-typeset";
    dialog.setAttribute("aria-label", "Figure at full size" + (title ? ": " + title.textContent.trim() : ""));
    dialog.innerHTML =
      '<div class="fig-zoom__bar"><span class="fig-zoom__hint">Scroll to see all of it</span>' +
      '<button type="button" class="fig-zoom__button fig-zoom__close">Close</button></div>' +
      '<div class="fig-zoom__body" tabindex="0" role="region" aria-label="Figure, scrolls both ways"></div>';
    const body = dialog.querySelector(".fig-zoom__body");
    svg.replaceWith(placeholder);
    body.appendChild(svg);
    svg.style.width = width + "px";
    svg.style.maxWidth = "none";
    document.body.appendChild(dialog);
    figure.dataset.figZoom = "open";

    function close() {
      if (dialog.open) dialog.close();
    }
    dialog.addEventListener("close", () => {
      svg.style.width = "";
      svg.style.maxWidth = "";
      placeholder.replaceWith(svg);
      dialog.remove();
      figure.dataset.figZoom = "available";
      update(figure);
      button.focus();
    });
    dialog.querySelector(".fig-zoom__close").addEventListener("click", close);
    // A click on the backdrop (outside the dialog's box) closes it.
    dialog.addEventListener("click", (event) => {
      if (event.target === dialog) close();
    });
    dialog.showModal();
    body.focus();
  }

  // A figure is measured once it is near the screen: one far down may be in a part of the page the
  // browser has not drawn yet (mlblog/pages/chunks.py), and measuring it would draw it now.
  const near = new IntersectionObserver((entries) => entries.forEach((entry) => {
    if (!entry.isIntersecting) return;
    near.unobserve(entry.target);
    update(entry.target);
  }), { rootMargin: "50% 0px" });

  function watch(figure) {
    if (!drawings(figure).length) return;
    if (!figure.querySelector(":scope > .fig-zoom__open")) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "fig-zoom__button fig-zoom__open";
      button.hidden = true;
      button.innerHTML = '<span aria-hidden="true">⤢</span> Open figure full size';
      button.addEventListener("click", () => open(figure, button));
      const caption = figure.querySelector(":scope > figcaption");
      figure.insertBefore(button, caption);
    }
    near.observe(figure);
  }

  function scan() {
    near.disconnect(); // figures of the page before an instant navigation
    document.querySelectorAll(FIGURES).forEach(watch);
  }

  // An interactive figure draws itself once its script has arrived, which core.js loads after the
  // page (docs/javascripts/ifig/core.js): it says so with "ifig:live", and its drawing is watched then.
  document.addEventListener("ifig:live", (event) => {
    if (event.target instanceof Element && event.target.matches(FIGURES)) watch(event.target);
  });

  // A new width changes every figure's scale: each is measured again once near the screen.
  let pending = 0;
  window.addEventListener("resize", () => {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => document.querySelectorAll(FIGURES).forEach((figure) => {
      near.unobserve(figure);
      if (drawings(figure).length) near.observe(figure);
    }));
  });
  // Deferred a task, so interactive figures registered by any later script are live first.
  const later = () => setTimeout(scan, 0);
  if (window.document$) window.document$.subscribe(later);
  else document.addEventListener("DOMContentLoaded", later);
})();
