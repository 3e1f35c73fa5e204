// KaTeX for mlblog/render/math.py: one Node process per build renders every formula.
// Started as `node render_math.cjs <node_modules>`; reads one JSON request per line on stdin,
// {"tex": "...", "display": true|false, "options": {...}}, and answers each with one JSON line,
// {"html": "..."} or {"error": "KaTeX's message"}. The first line it writes is {"version": "..."}.
"use strict";
const path = require("path");
const readline = require("readline");
const katex = require(path.join(process.argv[2], "katex"));

process.stdout.write(JSON.stringify({ version: katex.version }) + "\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const request = JSON.parse(line);
  let answer;
  try {
    answer = { html: katex.renderToString(request.tex, { ...request.options, displayMode: request.display, throwOnError: true }) };
  } catch (err) {
    answer = { error: err instanceof katex.ParseError ? err.message : String(err) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
