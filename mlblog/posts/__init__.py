"""Posts and their rules: the front-matter schema, the typed record, every check, in one API."""

from .bodies import EXTERNAL_ACCEPTED, SNIPPET_ACCEPTED, body_problems
from .collection import Listing, Posts
from .frontmatter import parse_front_matter, split_front_matter
from .problems import Problem, Stop, format_problems
from .rules import Context, check_all, check_post, cross_post_problems, docs_link_problems, load_authors
from .schema import (
    AUTHORS_FILE,
    CATEGORIES,
    DESCRIPTION_MAX,
    DESCRIPTION_MIN,
    EXCERPT_MARKER,
    POSTS_DIR,
    TITLE_MAX,
    Author,
    FrontMatter,
    Post,
)

__all__ = [
    "AUTHORS_FILE", "CATEGORIES", "DESCRIPTION_MAX", "DESCRIPTION_MIN", "EXCERPT_MARKER", "EXTERNAL_ACCEPTED",
    "POSTS_DIR", "SNIPPET_ACCEPTED", "TITLE_MAX", "Author", "Context", "FrontMatter", "Listing", "Post", "Posts",
    "Problem", "Stop", "body_problems", "check_all", "check_post", "cross_post_problems", "docs_link_problems",
    "format_problems", "load_authors", "parse_front_matter", "split_front_matter",
]
