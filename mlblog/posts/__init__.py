"""Posts and their rules: the front-matter schema, the typed record, every check, in one API."""

from .bodies import EXTERNAL_ACCEPTED, SNIPPET_ACCEPTED
from .problems import Problem, Stop
from .rules import Context, check_all, check_post, load_authors
from .schema import CATEGORIES, DESCRIPTION_MAX, DESCRIPTION_MIN, EXCERPT_MARKER, TITLE_MAX, FrontMatter, Post

__all__ = [
    "CATEGORIES", "DESCRIPTION_MAX", "DESCRIPTION_MIN", "EXCERPT_MARKER", "EXTERNAL_ACCEPTED", "SNIPPET_ACCEPTED",
    "TITLE_MAX", "Context", "FrontMatter", "Post", "Problem", "Stop", "check_all", "check_post", "load_authors",
]
