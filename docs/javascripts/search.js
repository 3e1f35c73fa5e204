/* Search in the header, over Pagefind's sharded index (mlblog/pages/search.py builds it into
   pagefind/ in the site), in Material's search box (overrides/partials/search.html).

   Costs nothing until used: no page fetches any search data (pagefind.js, its WebAssembly core,
   index chunks) until the reader opens search (focuses the box, taps the search icon, or presses
   / or s as in Material). Pagefind then fetches only the index chunks a query's words need.

   Keyboard as in Material: / or s opens, Down and Up move through the results, Enter opens the
   focused (or first) result, Escape closes. A result's link carries ?h=<query>; the page it opens
   marks the query's words in its article. */
(function () {
  "use strict";
  const root = document.querySelector("[data-site-search]");
  const toggle = document.getElementById("__search");
  if (!root || !toggle) return;
  const input = root.querySelector(".md-search__input");
  const form = root.querySelector(".md-search__form");
  const meta = root.querySelector(".md-search-result__meta");
  const list = root.querySelector(".md-search-result__list");
  const placeholder = meta.textContent;
  // Resolved once, against the page that loaded this script: with instant navigation the header
  // (and this script) stays while the address changes.
  const bundle = new URL(root.dataset.pagefind, location.href);
  const siteBase = new URL("../", bundle).pathname;
  const MAX_RESULTS = 10;
  const FIRST_SHOWN = 3;
  let engine = null;
  let serial = 0;
  let searching = null;  // the search Pagefind is running, if any
  let pause = 0;  // the timer that starts a search once typing pauses
  // A search starts once the reader pauses for PAUSE_MS (a fast typist's keys come 50 to 100 ms
  // apart, so a word typed in one go is searched once, not once per prefix). Pagefind treats the
  // last word as a prefix, and a prefix of one or two letters matches most words of the index:
  // by far the dearest search (most of a second at 1,000 posts on a shared two-core machine, and
  // every later search queued behind it), so such a short text waits for a longer pause.
  const PAUSE_MS = 40;
  const SHORT = 3;
  const SHORT_PAUSE_MS = 300;

  function load() {
    if (!engine) {
      engine = import(new URL("pagefind.js", bundle).href).then(async (pagefind) => {
        await pagefind.options({ baseUrl: siteBase, excerptLength: 24 });
        await pagefind.init();
        return pagefind;
      });
      engine.catch(() => { engine = null; });
    }
    return engine;
  }

  function open() {
    toggle.checked = true;
    load();
    if (document.activeElement !== input) {
      input.focus();
      input.select();
    }
  }

  function close() {
    toggle.checked = false;
    input.blur();
  }

  // Pagefind's excerpt is the page's text with the matched words in <mark>: keep exactly that
  // (text and marks), whatever else the string might hold.
  function excerpt(html) {
    const template = document.createElement("template");
    template.innerHTML = html;
    const p = document.createElement("p");
    template.content.childNodes.forEach((node) => {
      if (node.nodeName === "MARK") {
        const mark = document.createElement("mark");
        mark.textContent = node.textContent;
        p.append(mark);
      } else {
        p.append(document.createTextNode(node.textContent));
      }
    });
    return p;
  }

  // The section of the post that matches best (its heading's anchor), else the page itself.
  function best(data) {
    let top = null;
    let topScore = 0;
    for (const sub of data.sub_results || []) {
      const score = (sub.weighted_locations || []).reduce((sum, loc) => sum + loc.balanced_score, 0);
      if (score > topScore) { top = sub; topScore = score; }
    }
    return top || data;
  }

  // The result's address with ?h=<query as typed>: Pagefind's own highlight parameter would carry
  // its normalised words (reducermark_variable_ready), which the page's text does not contain.
  function address(url, query) {
    const target = new URL(url, location.href);
    target.searchParams.set("h", query);
    return target.pathname + target.search + target.hash;
  }

  function render(data, query) {
    const section = best(data);
    const item = document.createElement("li");
    item.className = "md-search-result__item";
    const link = document.createElement("a");
    link.className = "md-search-result__link";
    link.href = address(section.url, query);
    link.tabIndex = -1;
    const article = document.createElement("article");
    article.className = "md-search-result__article md-typeset";
    const title = document.createElement("h1");
    title.textContent = (data.meta && data.meta.title) || data.url;
    article.append(title);
    if (section !== data && section.title && section.title !== title.textContent) {
      const heading = document.createElement("h2");
      heading.textContent = section.title;
      article.append(heading);
    }
    article.append(excerpt(section.excerpt || data.excerpt || ""));
    link.append(article);
    item.append(link);
    return item;
  }

  function typed() {
    const query = input.value.trim();
    const mine = ++serial;
    clearTimeout(pause);
    if (!query) {
      list.replaceChildren();
      meta.textContent = placeholder;
      delete root.dataset.searchQuery;
      return;
    }
    pause = setTimeout(() => run(query, mine), query.length < SHORT ? SHORT_PAUSE_MS : PAUSE_MS);
  }

  async function run(query, mine) {
    try {
      const pagefind = await load();
      // One search at a time: keys typed while one runs are answered by one search for the
      // latest text when it ends, not queued one per key behind it.
      while (searching) await searching;
      if (mine !== serial) return;
      let done;
      searching = new Promise((resolve) => { done = resolve; });
      let found;
      try {
        found = await pagefind.search(query);
      } finally {
        searching = null;
        done();
      }
      if (mine !== serial || !found) return;
      // Each result's text is a fragment of its own, which Pagefind's worker fetches, unpacks and
      // cuts an excerpt from: ask for the first few only, show them, then ask for the rest, so a
      // word that every post has does not wait for ten fragments being unpacked side by side.
      const shown = found.results.slice(0, MAX_RESULTS);
      const head = await Promise.all(shown.slice(0, FIRST_SHOWN).map((r) => r.data()));
      if (mine !== serial) return;
      const n = found.results.length;
      meta.textContent = n === 0 ? "No matching documents" : n === 1 ? "1 matching document"
        : `${n} matching documents`;
      list.replaceChildren(...head.map((d) => render(d, query)));
      root.dataset.searchQuery = query;  // the query these results answer (tests, benchmark)
      const tail = await Promise.all(shown.slice(FIRST_SHOWN).map((r) => r.data()));
      if (mine !== serial) return;
      list.append(...tail.map((d) => render(d, query)));
    } catch (err) {
      if (mine === serial) meta.textContent = "Search is unavailable";
      throw err;
    }
  }

  function links() {
    return Array.from(list.querySelectorAll(".md-search-result__link"));
  }

  input.addEventListener("focus", () => { toggle.checked = true; load(); });
  input.addEventListener("input", typed);
  toggle.addEventListener("change", () => (toggle.checked ? open() : input.blur()));
  form.addEventListener("submit", (event) => event.preventDefault());
  form.addEventListener("reset", () => setTimeout(typed));
  list.addEventListener("click", (event) => {
    if (event.target.closest(".md-search-result__link")) close();
  });

  root.addEventListener("keydown", (event) => {
    const all = links();
    const at = all.indexOf(document.activeElement);
    if (event.key === "Escape") {
      event.preventDefault();
      close();
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (!all.length) return;
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      const next = at + step;
      if (next < 0) input.focus();
      else all[Math.min(next, all.length - 1)].focus();
    } else if (event.key === "Enter" && document.activeElement === input && all.length) {
      event.preventDefault();
      all[0].click();
    }
  });

  // / or s (or f) opens search from anywhere outside a text field, as Material's own search does.
  const NOT_TEXT = new Set(["checkbox", "radio", "button", "submit", "reset", "range", "color", "file"]);
  document.addEventListener("keydown", (event) => {
    if (toggle.checked || event.metaKey || event.ctrlKey || event.altKey) return;
    if (event.key !== "/" && event.key !== "s" && event.key !== "f") return;
    const target = event.target;
    if (target instanceof HTMLElement && (target.isContentEditable || /^(TEXTAREA|SELECT)$/.test(target.tagName)
        || (target.tagName === "INPUT" && !NOT_TEXT.has(target.type)))) return;
    event.preventDefault();
    open();
  });

  // The page a result opened: mark the query's words in the article (?h=, Pagefind's parameter).
  function highlight() {
    const terms = new URLSearchParams(location.search).getAll("h").join(" ").split(/\s+/)
      .filter((t) => t.length > 1);
    const article = document.querySelector("article.md-content__inner");
    if (!terms.length || !article) return;
    const escaped = terms.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    const pattern = new RegExp(`(${escaped.join("|")})`, "gi");
    const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT, {
      acceptNode: (node) => (node.parentElement.closest("script, style, svg, mark, .katex")
        ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    const hits = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (pattern.test(node.nodeValue)) hits.push(node);
      pattern.lastIndex = 0;
    }
    for (const node of hits) {
      const parts = node.nodeValue.split(pattern);
      node.replaceWith(...parts.map((part, i) => {
        if (i % 2 === 0) return document.createTextNode(part);
        const mark = document.createElement("mark");
        mark.dataset.searchHighlight = "";
        mark.textContent = part;
        return mark;
      }));
    }
    const first = article.querySelector("mark[data-search-highlight]");
    if (first && !location.hash) first.scrollIntoView({ block: "center" });
  }

  // The header's sections (overrides/main.html): instant page changes keep the header, so the
  // section of the new page is lit here, by the rule the build uses (mlblog/contracts.py tab_of):
  // the section whose address is the longest prefix of the page's.
  function lightSection() {
    const links = [...document.querySelectorAll(".site-header__sections a")];
    const here = location.pathname;
    let best = null;
    for (const link of links) {
      const path = new URL(link.href).pathname;
      if (here.startsWith(path) && (!best || path.length > new URL(best.href).pathname.length)) best = link;
    }
    for (const link of links) {
      if (link !== best) link.removeAttribute("aria-current");
      else link.setAttribute("aria-current", new URL(link.href).pathname === here ? "page" : "true");
    }
  }

  if (window.document$) window.document$.subscribe(() => { highlight(); lightSection(); });
  else highlight();
})();
