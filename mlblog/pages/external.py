"""What in a piece of HTML or CSS would make a reader's browser fetch something from another host.

The site promises that a page loads nothing from any host but its own: no CDN, no web font, no
tracker, no embedded frame. A link a reader follows (``<a href>``, a Markdown link) is fine; what
the browser fetches by itself is not: ``src``/``srcset``/``poster``/``data`` and the older
``background``/``lowsrc``, a stylesheet, script, preload or icon ``<link>``, SVG ``<image>``/``<use>``,
``<base href>`` (which moves every relative URL), ``ping``, a ``<meta>`` refresh, CSS ``url()`` and
``@import`` in a ``<style>`` element or a ``style`` attribute, and HTML inside ``srcdoc``.

The scan reads tags as a browser would where it matters for this question: entities in values are
decoded, tabs and newlines inside a URL are dropped and backslashes read as slashes (as browsers
do), every occurrence of a repeated attribute is checked (a browser keeps the first, so a later one
cannot hide it), comments end at ``-->``, ``--!>`` or an abrupt ``<!-->``, and a raw-text element
ends at its first closing tag. Where it cannot tell, it reports: a false alarm is a sentence for an
author; a missed request is a broken promise. Nothing here imports MkDocs.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

# A comment (as HTML5 ends them), a raw-text element whole, or a start or end tag.
TOKEN = re.compile(
    r"<!--(?:-?>|.*?--!?>)"
    r"|<(script|style|textarea|title|xmp|noembed|noframes|iframe)\b((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>"
    r"(.*?)(?:</\1(?=[\s/>])[^>]*>|\Z)"
    r"|<(/?)([a-zA-Z][^\s/>]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>", re.S | re.I)
ATTRIBUTE = re.compile(r"""([^\s"'>/=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+))?""")
# Attributes whose URL the browser fetches on its own, on any element.
FETCHED = frozenset({"src", "srcset", "imagesrcset", "poster", "background", "lowsrc", "dynsrc",
                     "codebase", "archive", "ping", "manifest", "longdesc"})
# Elements whose href (or xlink:href) is fetched, not followed.
FETCHED_HREF = frozenset({"link", "image", "use", "feimage", "script", "base", "tref"})
# <link rel> values that name a page rather than load one; any other rel is taken as a fetch.
LINK_NOT_FETCHED = frozenset({"canonical", "alternate", "author", "license", "help", "next", "prev",
                              "me", "bookmark", "external", "nofollow", "noopener", "noreferrer", "tag",
                              "shortlink", "privacy-policy", "terms-of-service"})
CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6})[ \t\n]?|\\(.)", re.S)
CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
# In CSS (comments gone, escapes decoded): url(...), @import, and any string that is a URL.
CSS_URL = re.compile(r"""url\(\s*(["']?)(.*?)\1\s*\)|@import\s+(["'])(.*?)\3|(["'])((?:[a-z][a-z0-9+.-]*:)?//.*?)\5""",
                     re.I | re.S)
# Schemes that load nothing from a host.
LOCAL_SCHEMES = frozenset({"data", "blob", "about", "javascript", "mailto", "tel"})
BLANKS = "".join(map(chr, range(0x21)))  # what a browser strips from both ends of a URL: C0 controls, space


@dataclass(frozen=True)
class External:
    """One thing the browser would fetch from another host: the URL as written, what asks for it
    (``<img src>``, ``CSS url()``) and where it is in the text (an offset)."""

    url: str
    what: str
    offset: int


def normalised(url: str) -> str:
    """A URL as the browser reads it: entities decoded, outer blanks stripped, tabs and newlines
    dropped, backslashes read as slashes."""
    url = html.unescape(url).strip(BLANKS)
    return re.sub(r"[\t\n\r]", "", url).replace("\\", "/")


def is_external(url: str, own_hosts: frozenset[str] = frozenset()) -> bool:
    """Whether fetching ``url`` (relative to a page of the site) asks another host."""
    url = normalised(url)
    scheme = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*):", url)
    if scheme and scheme[1].lower() in LOCAL_SCHEMES:
        return False
    if not scheme and not url.startswith("//"):
        return False  # a path on this site
    if scheme and not url[scheme.end():].startswith("//"):
        return True  # an odd scheme (ftp:x): not this site's file either
    host = (urlsplit(url if scheme else "https:" + url).hostname or "").lower()
    return host not in own_hosts


def css_externals(css: str, offset: int = 0, own_hosts: frozenset[str] = frozenset()) -> list[External]:
    """URLs a stylesheet (or a style attribute) would load from another host."""
    def unescape(match: re.Match[str]) -> str:
        if match[1]:
            code = int(match[1], 16)
            return chr(code) if 0 < code < 0x110000 and not 0xD800 <= code < 0xE000 else "\ufffd"
        return match[2]

    text = CSS_ESCAPE.sub(unescape, CSS_COMMENT.sub(" ", css))
    found = []
    for match in CSS_URL.finditer(text):
        url, what = (match[2], "CSS url()") if match[2] is not None else \
            (match[4], "CSS @import") if match[4] is not None else (match[6], "a URL in CSS")
        if is_external(url, own_hosts):
            found.append(External(url.strip(), what, offset + match.start()))
    return found


# A start tag that could ask for anything names one of these attributes (a quick test before the
# attributes are read one by one); an <a>'s href is a link, so an <a> needs one of the others.
MAYBE_FETCHING = re.compile(r"(?:src|set|poster|data|background|ping|manifest|archive|codebase|longdesc"
                            r"|href|style|content|doc)\s*=", re.I)
MAYBE_FETCHING_LINK = re.compile(r"(?:ping|style)\s*=", re.I)


def _tag_externals(name: str, rest: str, at: int, own: frozenset[str]) -> list[External]:
    if not (MAYBE_FETCHING_LINK if name == "a" else MAYBE_FETCHING).search(rest):
        return []
    found = []
    attributes = [(m[1].lower(), None if m[2] is None else m[2].strip("\"'") if m[2][:1] in "\"'" else m[2])
                  for m in ATTRIBUTE.finditer(rest)]
    rel = {v.lower() for k, value in attributes if k == "rel" and value for v in value.split()}
    for attribute, value in attributes:
        if value is None:
            continue
        what, urls = f"<{name} {attribute}>", []
        if attribute in ("srcset", "imagesrcset"):  # candidates split at commas, each URL before its descriptor
            urls = [part.split()[0] for part in html.unescape(value).split(",") if part.strip()]
        elif attribute in ("ping", "archive"):  # lists of URLs
            urls = html.unescape(value).split()
        elif attribute in FETCHED or (attribute == "data" and name == "object"):
            urls = [value]
        elif attribute in ("href", "xlink:href") and name in FETCHED_HREF:
            if not (name == "link" and rel and rel <= LINK_NOT_FETCHED):
                urls = [value]
        elif attribute == "style":
            found += [External(e.url, f"{e.what} in <{name} style>", at)
                      for e in css_externals(html.unescape(value), at, own)]
        elif attribute == "srcdoc":
            found += [External(e.url, f"{e.what} inside <{name} srcdoc>", at)
                      for e in externals(html.unescape(value), own)]
        elif attribute == "content" and name == "meta":
            refresh = re.search(r"url\s*=\s*['\"]?([^'\";]+)", html.unescape(value), re.I)
            if refresh and any(k == "http-equiv" and (v or "").lower() == "refresh" for k, v in attributes):
                what, urls = "<meta http-equiv=refresh>", [refresh[1]]
        found += [External(url.strip(), what, at) for url in urls if is_external(url, own)]
    return found


def externals(text: str, own_hosts: frozenset[str] = frozenset()) -> list[External]:
    """Everything in an HTML page or fragment that the browser would fetch from another host."""
    if "//" not in text and "\\" not in text and "&" not in text and ":" not in text:
        return []  # no absolute URL can be spelled without one of these
    found: list[External] = []
    for token in TOKEN.finditer(text):
        raw, raw_rest, body, closing, name, rest = token.groups()
        if raw:
            raw = raw.lower()
            found += _tag_externals(raw, raw_rest or "", token.start(), own_hosts)
            if raw == "style":
                found += css_externals(body or "", token.start(), own_hosts)
            elif raw != "script":  # text to a browser, but foreign content (SVG) may parse it: read it
                found += [External(e.url, e.what, token.start(3) + e.offset)
                          for e in externals(body or "", own_hosts)]
        elif name and not closing:
            found += _tag_externals(name.lower(), rest or "", token.start(), own_hosts)
    return found


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1
