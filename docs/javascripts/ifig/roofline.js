/* Roofline calculator: attainable throughput = min(peak compute, bandwidth x arithmetic intensity).
   Markup (the static table inside is the no-JavaScript figure):
     <figure class="ifig" data-ifig="roofline" data-peak-tflops="989" data-bandwidth-tbs="4.8"
             data-intensity="64"> <div class="ifig-static">...</div> <figcaption>...</figcaption></figure>
   State for readers and tests: data-intensity, data-attainable (TFLOP/s), data-bound. */
(function () {
  "use strict";
  const STEPS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048];

  function compute(peak, bw, intensity) {
    const attainable = Math.min(peak, bw * intensity); // TB/s x FLOP/B = TFLOP/s
    return { attainable, bound: bw * intensity < peak ? "memory-bound" : "compute-bound" };
  }

  window.IFIG.register("roofline", (root) => {
    const peak = Number(root.dataset.peakTflops);
    const bw = Number(root.dataset.bandwidthTbs);
    if (!(peak > 0 && bw > 0)) throw new Error("data-peak-tflops and data-bandwidth-tbs must be positive");
    let index = Math.max(0, STEPS.indexOf(Number(root.dataset.intensity || 64)));

    const ui = document.createElement("div");
    ui.className = "ifig-controls";
    ui.innerHTML =
      '<button type="button" class="md-button ifig-prev" aria-label="Halve the arithmetic intensity">−</button>' +
      '<label class="ifig-label">Arithmetic intensity <input type="range" class="ifig-range" min="0" max="' +
      (STEPS.length - 1) + '" step="1"></label>' +
      '<button type="button" class="md-button ifig-next" aria-label="Double the arithmetic intensity">+</button>' +
      '<p class="ifig-readout" aria-live="polite"></p>' +
      '<div class="ifig-bar" aria-hidden="true"><div class="ifig-bar__fill"></div></div>';
    root.insertBefore(ui, root.querySelector("figcaption"));
    const range = ui.querySelector(".ifig-range");
    const readout = ui.querySelector(".ifig-readout");
    const fill = ui.querySelector(".ifig-bar__fill");

    function show() {
      const intensity = STEPS[index];
      const { attainable, bound } = compute(peak, bw, intensity);
      range.value = String(index);
      range.setAttribute("aria-valuetext", intensity + " FLOP per byte");
      readout.textContent = intensity + " FLOP/byte → " + attainable.toFixed(1) + " TFLOP/s attainable of " +
        peak + " peak (" + bound + ")";
      fill.style.width = (100 * attainable / peak).toFixed(1) + "%";
      fill.dataset.bound = bound;
      root.dataset.intensity = String(intensity);
      root.dataset.attainable = attainable.toFixed(1);
      root.dataset.bound = bound;
    }

    range.addEventListener("input", () => { index = Number(range.value); show(); });
    ui.querySelector(".ifig-prev").addEventListener("click", () => { index = Math.max(0, index - 1); show(); });
    ui.querySelector(".ifig-next").addEventListener("click", () => {
      index = Math.min(STEPS.length - 1, index + 1); show();
    });
    show();
  });
})();
