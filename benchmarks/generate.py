"""Generate a benchmark site: N synthetic long posts shaped like the real ones, one commit each.

    python benchmarks/generate.py DEST N

DEST gets two configurations over the same docs/: ``mkdocs.yml`` (a copy of the real one, with
every hook, feed, git date and card) and ``bare.yml`` (Material's blog as it comes: the search and
blog plugins with the same ``markdown_extensions``, taken verbatim from the real mkdocs.yml). The
posts pass the site's own rules (front matter from mlblog/posts/schema.py's CATEGORIES, an excerpt
marker, body checks) and carry what real posts carry: prose with inline code and links, code
blocks in several languages, tables, inline and display math, admonitions, collapsible blocks,
tabs and, in every fourth post, a Mermaid diagram. DEST is a git repository with one commit per
post (dated a day apart), so git dates, feeds and the history the plugins read are realistic.
The text is pseudo-random from a fixed seed: the same N gives the same site.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from mlblog.posts import CATEGORIES

ROOT = Path(__file__).resolve().parents[1]

WORDS = (
    "kernel tensor buffer stream launch warp scheduler graph guard bucket allreduce gradient shard "
    "latency throughput cache page block token batch prefill decode attention softmax tile register "
    "shared memory bandwidth roofline fusion lowering codegen wrapper reducer communicator ring "
    "transport handle process engine request queue overlap pipeline stage layout stride shape "
    "the a of to in and is that it for on with as by this from each one which when then"
).split()
SECTIONS = 20  # about 55 kB of Markdown and 20 code blocks a post; the real posts average 66 kB
IDENTIFIERS = ("bucket_cap_mb", "Reducer::mark_variable_ready", "torch.compile", "tcgen05.mma",
               "ncclCommInitRank", "flash_attn_func", "CUDAGraph.replay", "GraphLowering.run")
PYTHON = '''\
def step(model, batch, optimizer):
    """One training step: forward, backward, all-reduce in buckets, update."""
    loss = model(batch["input"]).logsumexp(dim=-1).mean()
    loss.backward()
    for group in optimizer.param_groups:
        for param in group["params"]:
            if param.grad is not None:
                param.grad.div_(float({n}))
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss.detach()
'''
CPP = '''\
template <int kBlockM, int kBlockN>
__global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int n) {{
  int row = blockIdx.x * kBlockM + threadIdx.y;
  float running_max = -INFINITY, running_sum = 0.f;
  for (int col = threadIdx.x; col < n; col += kBlockN) {{
    float v = x[row * n + col];
    float new_max = fmaxf(running_max, v);
    running_sum = running_sum * __expf(running_max - new_max) + __expf(v - new_max);
    running_max = new_max;
  }}
  y[row] = running_max + __logf(running_sum) + {n};
}}
'''
BASH = '''\
torchrun --nproc-per-node=8 train.py --bucket-cap-mb {n} \\
  --compile --mode max-autotune 2>&1 | tee run.log
grep -E "bucket|allreduce" run.log | sort | uniq -c
'''
YAML = '''\
model: qwen3-{n}b
parallel:
  tensor: 4
  pipeline: 2
scheduler:
  max_num_batched_tokens: 8192
  cuda_graph_sizes: [1, 2, 4, 8, 16, 32]
'''
MERMAID = '''\
graph LR
  A[Python frame] --> B[Dynamo]
  B --> C[FX graph {n}]
  C --> D[AOTAutograd]
  D --> E[Inductor]
  E --> F[Kernel]
'''


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(9, 22))]
    if rng.random() < 0.4:
        words.insert(rng.randint(1, len(words) - 1), f"`{rng.choice(IDENTIFIERS)}`")
    if rng.random() < 0.15:
        words.insert(rng.randint(1, len(words) - 1), "$O(n \\log n)$")
    return " ".join(words).capitalize() + "."


def paragraph(rng: random.Random, sentences: int = 5) -> str:
    return textwrap.fill(" ".join(sentence(rng) for _ in range(sentences)), width=100)


def table(rng: random.Random) -> str:
    rows = ["| Configuration | Tokens/s | Latency (ms) | Memory (GiB) |",
            "| --- | ---: | ---: | ---: |"]
    for _ in range(rng.randint(4, 8)):
        rows.append(f"| `{rng.choice(IDENTIFIERS)}` | {rng.randint(100, 9000)} | {rng.random() * 40:.2f} "
                    f"| {rng.random() * 80:.1f} |")
    return "\n".join(rows)


def section(rng: random.Random, index: int, number: int, post: int) -> str:
    parts = [f"## Part {number}: the {rng.choice(WORDS)} {rng.choice(WORDS)} path", paragraph(rng)]
    code = [("python", PYTHON), ("cpp", CPP), ("bash", BASH), ("yaml", YAML)]
    lang, text = code[(number + post) % len(code)]
    parts.append(f'```{lang} title="example.{lang}"\n{text.format(n=number)}```')
    parts.append(paragraph(rng, 4))
    parts.append(f"### The {rng.choice(WORDS)} in detail\n\n{paragraph(rng, 6)}")
    if number % 2 == 0:
        parts.append(table(rng))
    if number % 3 == 0:
        parts.append("$$\n\\operatorname{softmax}(x)_i = \\frac{e^{x_i - m}}{\\sum_j e^{x_j - m}},"
                     f" \\quad m = \\max_j x_j + {number}\n$$")
    if number % 3 == 1:
        parts.append(f'!!! note "What to remember"\n\n{textwrap.indent(paragraph(rng, 3), "    ")}')
    if number % 4 == 2:
        parts.append(f'??? tip "The long version"\n\n{textwrap.indent(paragraph(rng, 4), "    ")}')
    if number % 4 == 3:
        parts.append('=== "Python"\n\n    ```python\n    torch.compile(model, mode="reduce-overhead")\n    ```\n\n'
                     '=== "C++"\n\n    ```cpp\n    at::Tensor y = at::softmax(x, -1);\n    ```')
    if number == 2 and post % 4 == 0:
        parts.append(f"```mermaid\n{MERMAID.format(n=post)}```")
    return "\n\n".join(parts)


def post_day(index: int) -> dt.date:
    return dt.date(2020, 1, 1) + dt.timedelta(days=index)


def post_text(index: int, count: int) -> tuple[str, str]:
    rng = random.Random(1000 + index)
    slug = f"synthetic-post-{index:04d}"
    day = post_day(index)
    title = f"Synthetic deep dive {index}: the {rng.choice(WORDS)} and the {rng.choice(WORDS)}"
    description = ("A synthetic post for the build benchmark, shaped like the real deep dives: prose, "
                   f"code, tables, math and diagrams (number {index}).")
    categories = rng.sample(CATEGORIES, rng.randint(1, 2))
    front = (f"---\ntitle: {json.dumps(title)}\nslug: {slug}\ndate: {day.isoformat()}\n"
             f"description: {json.dumps(description)}\ncategories: {json.dumps(categories)}\n"
             "authors: [editors]\nupstream: {pytorch: v2.13.0}\n---\n\n")
    body = [paragraph(rng, 4), "<!-- more -->", paragraph(rng, 5)]
    if index > 0:
        body.append(f"This follows [the previous deep dive](synthetic-post-{index - 1:04d}.md) closely.")
    for number in range(1, SECTIONS + 1):
        body.append(section(rng, index, number, index))
    return f"{slug}.md", front + "\n\n".join(body) + "\n"


def bare_config(real: str) -> str:
    """Material's blog as it comes, with the real site's Markdown extensions (its last section)."""
    extensions = real[real.index("\nmarkdown_extensions:"):]
    return textwrap.dedent("""\
        # Bare Material blog over the same docs/: search + blog, the same Markdown extensions.
        site_name: ML Systems Deep Dives
        site_url: https://ml-systems-deep-dives.github.io/
        docs_dir: docs-bare   # blog/index.md and .authors.yml; blog/posts links to docs/blog/posts
        theme:
          name: material
        plugins:
          - search
          - blog:
              blog_dir: blog
              post_url_format: "{date}/{slug}"
        """) + extensions


def git(dest: Path, *args: str, stdin: bytes | None = None) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.org",
           "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.org"}
    subprocess.run(["git", *args], cwd=dest, env=env, input=stdin, check=True, capture_output=True)


def generate(dest: Path, count: int) -> None:
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for folder in ("overrides", "examples"):
        shutil.copytree(ROOT / folder, dest / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "docs", dest / "docs",
                    ignore=lambda folder, names: names if Path(folder) == ROOT / "docs" / "blog" / "posts" else [])
    (dest / "node_modules").symlink_to(ROOT / "node_modules")
    real = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    (dest / "mkdocs.yml").write_text(real, encoding="utf-8")
    (dest / "bare.yml").write_text(bare_config(real), encoding="utf-8")
    bare = dest / "docs-bare" / "blog"
    bare.mkdir(parents=True)
    (bare.parent / "index.md").write_text("# ML Systems Deep Dives\n", encoding="utf-8")
    (bare / "index.md").write_text("# Blog\n", encoding="utf-8")
    shutil.copy2(ROOT / "docs" / "blog" / ".authors.yml", bare / ".authors.yml")
    (bare / "posts").symlink_to(Path("..", "..", "docs", "blog", "posts"))
    (dest / ".gitignore").write_text("/site*/\n/node_modules\n/.cache/\n__pycache__/\n", encoding="utf-8")
    posts = dest / "docs" / "blog" / "posts"
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "site without posts", "--date", "2019-12-31T12:00:00+00:00")
    # One commit per post through git fast-import (one process, not 2N).
    stream = [b"feature done\n"]
    start = int(dt.datetime(2020, 1, 1, 12, tzinfo=dt.UTC).timestamp())
    for index in range(count):
        name, text = post_text(index, count)
        (posts / name).write_text(text, encoding="utf-8")
        data = text.encode()
        stamp = start + index * 86400
        message = f"post {index}".encode()
        stream += [b"commit refs/heads/main\n",
                   f"committer Bench <bench@example.org> {stamp} +0000\n".encode(),
                   f"data {len(message)}\n".encode(), message, b"\n"]
        if index == 0:
            stream.append(b"from refs/heads/main^0\n")
        stream += [f"M 100644 inline docs/blog/posts/{name}\n".encode(), f"data {len(data)}\n".encode(), data, b"\n"]
    stream.append(b"done\n")
    git(dest, "fast-import", "--quiet", "--force", stdin=b"".join(stream))
    git(dest, "reset", "-q")  # the index follows the new commits; the files are already in place


def main() -> None:
    dest, count = Path(sys.argv[1]).resolve(), int(sys.argv[2])
    generate(dest, count)
    print(f"{count} posts in {dest}")


if __name__ == "__main__":
    main()
