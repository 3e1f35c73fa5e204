"""A post asks for the math fonts of the formulas it lays out at load as soon as its head is read.

KaTeX's fonts are ``font-display: block``: a formula stays invisible until its font has arrived. A
browser learns that a font is needed only once it has styled and laid out a formula, after the
stylesheets have loaded, so the font arrives a round trip after the first layout and every formula
on screen is laid out a second time. A ``<link rel="preload">`` in the head starts the download with
the stylesheets instead. Only faces that will be used at once are preloaded: those of formulas
outside the chunks the browser skips (chunks.py). A font used only further down
is fetched when the reader gets there, as before, and no preload goes unused (the browser would
warn, and the bytes would be wasted).

Which face a piece of a formula uses is decided as the browser does, from KaTeX's own stylesheet:
the rules that set ``font-family``, ``font-style`` or ``font-weight`` are matched against each text's
element and its ancestors (the highest specificity, then the last rule, wins; otherwise the value is
inherited). The MathML twin of each formula is left out: the browser's own stylesheet gives
``<math>`` its ``math`` font. tests/browser/test_page_budgets.py checks the result against the faces Chromium
computes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..render.cache import Cache, key
from . import tags as html_tags
from .chunks import CHUNK_CLASS
from .tags import attributes_of, tags

FONT_PROPERTIES = ("font-family", "font-style", "font-weight")
# One compound selector of KaTeX's stylesheet: an optional type, then classes (".a.b").
COMPOUND = re.compile(r"([a-z]*)((?:\.[\w-]+)*)$")

Element = tuple[str, frozenset[str]]  # tag, classes
Face = tuple[str, str, str]  # family, style, weight


class Rule:
    """A KaTeX rule that sets a font property: its compound selectors, left to right, and the
    combinator (" " descendant, ">" child) between each and the next."""

    def __init__(self, selector: str, declarations: dict[str, str], order: int) -> None:
        self.compounds: list[Element] = []
        self.combinators: list[str] = []
        pending = " "
        for part in re.findall(r">|[^\s>]+", selector):
            if part == ">":
                pending = ">"
                continue
            compound = COMPOUND.match(part)
            if compound is None:
                raise ValueError(f"unexpected selector in KaTeX's stylesheet: {selector!r}")
            if self.compounds:
                self.combinators.append(pending)
            pending = " "
            self.compounds.append((compound[1], frozenset(c for c in compound[2].split(".") if c)))
        self.specificity = (sum(len(c) for _, c in self.compounds), sum(bool(t) for t, _ in self.compounds), order)
        self.declarations = declarations

    def matches(self, path: list[Element]) -> bool:
        """Whether the last element of path (its ancestors before it, outermost first) is selected."""
        def fits(compound: Element, element: Element) -> bool:
            return (not compound[0] or compound[0] == element[0]) and compound[1] <= element[1]

        def ancestors_match(i: int, at: int) -> bool:  # compounds[:i] against what encloses path[at]
            if i == 0:
                return True
            if self.combinators[i - 1] == ">":
                return at > 0 and fits(self.compounds[i - 1], path[at - 1]) and ancestors_match(i - 1, at - 1)
            return any(fits(self.compounds[i - 1], path[j]) and ancestors_match(i - 1, j)
                       for j in range(at - 1, -1, -1))

        return fits(self.compounds[-1], path[-1]) and ancestors_match(len(self.compounds) - 1, len(path) - 1)


def font_shorthand(value: str) -> dict[str, str]:
    """``font: normal 1.21em KaTeX_Main,math,serif`` as its style, weight and first family."""
    words = value.split()
    size = next((i for i, w in enumerate(words) if re.match(r"[\d.]+(?:em|px|rem|%)", w)), None)
    if size is None:  # a keyword such as "inherit": nothing this hook can resolve
        return {}
    declarations = {"font-style": "normal", "font-weight": "normal"}
    for word in words[:size]:
        if word in ("italic", "oblique"):
            declarations["font-style"] = word
        elif word == "bold" or word.isdigit():
            declarations["font-weight"] = word
    declarations["font-family"] = " ".join(words[size + 1:])
    return declarations


def font_rules(css: str) -> list[Rule]:
    """Every rule of KaTeX's stylesheet that sets a font property (its @font-face rules aside)."""
    rules = []
    css = re.sub(r"@font-face\{[^}]*\}", "", css)
    for order, (selectors, body) in enumerate(re.findall(r"([^{}@]+)\{([^{}]*)\}", css)):
        declarations: dict[str, str] = {}
        for declaration in body.split(";"):
            name, _, value = declaration.partition(":")
            name, value = name.strip(), value.strip()
            if name == "font":
                declarations.update(font_shorthand(value))
            elif name in FONT_PROPERTIES:
                declarations[name] = value
        if declarations:
            rules += [Rule(selector, declarations, order) for selector in selectors.split(",")]
    return rules


def face_file(face: Face) -> str:
    """KaTeX's file name for a face: ("KaTeX_Main", "italic", "700") -> KaTeX_Main-BoldItalic.woff2."""
    family, style, weight = face
    bold = "Bold" if weight == "bold" or (weight.isdigit() and int(weight) >= 600) else ""
    italic = "Italic" if style in ("italic", "oblique") else ""
    return f"{family.split(',')[0].strip().strip(chr(34))}-{(bold + italic) or 'Regular'}.woff2"


@dataclass
class Open:
    """An element open at this point of the scan."""

    element: Element
    attributes: dict[str, str]
    face: Face | None  # the face its text uses, inside a formula
    hidden: bool  # its text is not laid out when the page loads
    tabs_seen: int = 0  # of a tab set's radio inputs, then of its content's tabs: how many so far
    shown_tab: int = 0  # of a tab set: the tab whose input is checked (Material shows it)


def hidden_at_load(element: Element, attributes: dict[str, str], stack: list[Open]) -> bool:
    """Whether an element's text is not laid out when the page loads, so its fonts are not fetched:
    a skipped chunk, the MathML twin (the browser's own ``math`` font), a closed ``<details>`` but
    its summary, any tab of a tab set but the checked one, an element with ``hidden``."""
    tag, classes = element
    parent = stack[-1] if stack else None
    hidden_itself = CHUNK_CLASS in classes or tag == "math" or "hidden" in attributes
    if parent is None:
        return hidden_itself
    if tag == "summary" and parent.element[0] == "details":
        return parent.hidden or hidden_itself  # shown as long as its details element is
    if parent.hidden or (parent.element[0] == "details" and "open" not in parent.attributes):
        return True
    if tag == "input" and "tabbed-set" in parent.element[1]:
        if "checked" in attributes:
            parent.shown_tab = parent.tabs_seen
        parent.tabs_seen += 1
    if "tabbed-block" in classes and "tabbed-content" in parent.element[1]:
        tab_set = stack[-2] if len(stack) > 1 else None
        parent.tabs_seen += 1
        if parent.tabs_seen - 1 != (tab_set.shown_tab if tab_set else 0):
            return True
    return hidden_itself


def faces_used(fragment: str, rules: list[Rule]) -> set[str]:
    """File names of the KaTeX faces that the fragment's formulas laid out at load use."""
    keyed: dict[str, list[Rule]] = {}  # each rule under one class (or the tag) its element must have
    for rule in rules:
        tag, classes = rule.compounds[-1]
        keyed.setdefault(min(classes) if classes else tag, []).append(rule)
    found: set[str] = set()
    stack: list[Open] = []
    position = 0
    for tag in tags(fragment):
        top = stack[-1] if stack else None
        if top is not None and top.face is not None and not top.hidden and fragment[position:tag.start].strip():
            found.add(face_file(top.face))
        position = tag.end
        if tag.kind == "end":
            # Up to the element it closes; an end tag that closes nothing is ignored, as browsers do.
            if any(o.element[0] == tag.name for o in stack):
                while stack.pop().element[0] != tag.name:
                    pass
            continue
        if tag.kind != "start":
            continue
        attributes = attributes_of(tag.rest)
        element = (tag.name, frozenset(attributes.get("class", "").split()))
        hidden = hidden_at_load(element, attributes, stack)
        face = top.face if top is not None else None
        if not hidden and (face is not None or "katex" in element[1]):
            candidates = [rule for key in (*element[1], tag.name) for rule in keyed.get(key, ())]
            if candidates:
                path = [o.element for o in stack] + [element]
                values = dict(zip(FONT_PROPERTIES, face or ("", "normal", "normal"), strict=True))
                for rule in sorted((r for r in candidates if r.matches(path)), key=lambda r: r.specificity):
                    values.update(rule.declarations)
                face = (values["font-family"], values["font-style"], values["font-weight"])
        if tag.opens:
            stack.append(Open(element, attributes, face, hidden))
    return found


RULES = Path(__file__).read_bytes() + html_tags.SOURCE  # the tokenizer's rules are these too


class MathFonts:
    """KaTeX's font rules and files, read once per build, and the faces each post preloads."""

    def __init__(self, dist: Path, cache: Cache) -> None:
        css = (dist / "katex.min.css").read_text(encoding="utf-8")
        self.rules = font_rules(css)
        self.css = css.encode()  # part of each page's cache key: an upgrade of KaTeX decides anew
        self.fonts = {font.name for font in (dist / "fonts").glob("*.woff2")}
        self.cache = cache

    def preloaded(self, content: str) -> list[str]:
        """The face files a post's content (as published: math rendered, chunks made) preloads."""
        name = key(content, RULES, self.css, json.dumps(sorted(self.fonts)).encode())
        stored = self.cache.get(name, ".json")
        if stored is not None:
            return json.loads(stored)
        # A face KaTeX does not ship would be matched to another by the browser: never preload it.
        faces = sorted(faces_used(content, self.rules) & self.fonts)
        self.cache.put(name, json.dumps(faces).encode(), ".json")
        return faces


def with_preloads(output: str, hrefs: list[str]) -> str:
    """The page with a font preload for each href, before the stylesheets so the downloads start with
    theirs."""
    links = "".join(f'<link rel="preload" href="{href}" as="font" type="font/woff2" crossorigin>\n' for href in hrefs)
    at = output.find('<link rel="stylesheet"')
    return output if not links or at < 0 else output[:at] + links + output[at:]
