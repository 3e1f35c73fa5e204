"""Fixture posts that exercise what readers use: feeds, series, math, diagrams, identifiers, figures."""

from __future__ import annotations

from support import Site, post

# slug -> (title, date, identifiers the post explains)
IDENTIFIER_POSTS = {
    "ddp-buckets": ("Gradient buckets in DDP", "2025-05-11",
                    "The `bucket_cap_mb` argument sizes buckets; `Reducer::mark_variable_ready` counts down each "
                    "bucket's pending gradients and calls `mark_variable_ready` again for the next one."),
    "inductor-scheduler": ("How Inductor fuses", "2025-06-02",
                           "The fusion decisions live in `torch._inductor.scheduler`, whose `Scheduler` class "
                           "walks the nodes."),
    "blackwell-mma": ("Fifth-generation tensor cores", "2025-07-01",
                      "On Blackwell the `tcgen05.mma` instruction reads operands from tensor memory."),
    "qwen3-attention": ("Qwen3 attention", "2025-07-20",
                        "Qwen3 normalises queries with `q_norm` and keys with `k_norm` before RoPE."),
    # A decoy that mentions parts of the identifiers in ordinary prose, and every identifier in a
    # short listing: as many mentions as the posts that explain them, on a shorter page (which
    # Pagefind ranks higher), so it comes first unless mlblog/pages/search.py weighs the
    # identifiers a post puts in inline code.
    "decoy": ("Buckets, schedulers and norms in general", "2025-04-01",
              "A bucket holds water, a scheduler plans a day, a norm is a rule, and ready means prepared.\n\n"
              "```text\n" + "bucket_cap_mb Reducer::mark_variable_ready mark_variable_ready\n"
              "torch._inductor.scheduler tcgen05.mma q_norm\n" * 3 + "```"),
}

# Tags are not indexed (they repeat across posts): tagged with the identifiers' parts, the decoy
# must not gain from them.
DECOY_TAGS = ("bucket", "mark", "ready", "norm", "mma")

MATH_AND_DIAGRAM_BODY = r"""The online softmax keeps a running maximum $m_i$ and sum $\ell_i$.

<!-- more -->

## The update

$$
m_i^{\text{new}} = \max(m_i, \tilde m_{ij}), \qquad
\ell_i^{\text{new}} = e^{m_i - m_i^{\text{new}}} \ell_i + e^{\tilde m_{ij} - m_i^{\text{new}}} \tilde \ell_{ij}
$$

## The path

```mermaid
flowchart LR
  A[LLM.generate] --> B[EngineCore]
  B --> C[Scheduler]
```

## A figure

<figure class="ifig" data-ifig="roofline" data-peak-tflops="989" data-bandwidth-tbs="4.8" data-intensity="64">
<div class="ifig-static">
<table>
<tr><th>FLOP/byte</th><th>attainable TFLOP/s</th></tr>
<tr><td>64</td><td>307.2 (memory-bound)</td></tr>
<tr><td>256</td><td>989 (compute-bound)</td></tr>
</table>
</div>
<figcaption>Roofline of a hypothetical 989 TFLOP/s, 4.8 TB/s accelerator.</figcaption>
</figure>
"""


# A figure as wide as the hand-drawn maps of the real posts (1000 units, 12 px labels): at 390 px
# its labels would render at about 4 px, so figure-zoom.js offers to open it at full size.
WIDE_FIGURE_BODY = """The second part opens with one paragraph.

<!-- more -->

## The wide map

<figure class="fig" markdown="0">
<svg class="fig-svg" role="img" aria-labelledby="wide-title wide-desc" viewBox="0 0 1000 160">
<title id="wide-title">A wide map</title>
<desc id="wide-desc">Four boxes from left to right.</desc>
<rect class="fig-box" x="10" y="40" width="220" height="80"/>
<text class="fig-text" x="20" y="85">capture and guards</text>
<rect class="fig-box" x="260" y="40" width="220" height="80"/>
<text class="fig-text" x="270" y="85">AOTAutograd joint graph</text>
<rect class="fig-box" x="510" y="40" width="220" height="80"/>
<text class="fig-mono" x="520" y="85">GraphLowering.run</text>
<rect class="fig-box" x="760" y="40" width="220" height="80"/>
<text class="fig-text-small" x="770" y="85">the wrapper module</text>
</svg>
<figcaption>A map far wider than a phone.</figcaption>
</figure>

More prose after the figure.
"""


def write_reader_posts(site: Site) -> None:
    for slug, (title, date, text) in IDENTIFIER_POSTS.items():
        body = f"{text}\n\n<!-- more -->\n\n## Details\n\n{text}\n"
        extra = f"tags: [{', '.join(DECOY_TAGS)}]\n" if slug == "decoy" else ""
        site.write_post(f"{slug}.md", post(title=title, slug=slug, date=date, body=body, extra=extra))
    site.write_post("series-1.md", post(
        title="Compilers, part one", slug="compilers-one", date="2025-08-07", categories=("torch.compile",),
        description="The first part of a two-part fixture series, with math, a diagram and an interactive figure.",
        extra="series: {name: Compiler fixtures, part: 1}\nrelated: [inductor-scheduler]\ntags: [dynamo, inductor]\n",
        body=MATH_AND_DIAGRAM_BODY))
    site.write_post("series-2.md", post(
        title="Compilers, part two", slug="compilers-two", categories=("torch.compile",),
        date="{created: 2025-09-01, updated: 2025-10-15}",
        description="The second part of a two-part fixture series, updated after it was first published.",
        extra="series: {name: Compiler fixtures, part: 2}\n", body=WIDE_FIGURE_BODY))
