"""Drive a scenario stepper (docs/javascripts/ifig/core.js, IFIG.stepper) in a real browser.

The radix-stepper and scheduler-stepper figures share their controls: a "Scenario" list and
First / Previous / Next / Last step buttons. ``open_figure`` loads a post and waits for the
figure to go live; ``drive_every_step`` walks every scenario with clicks or key presses (every step,
or both ends) and calls ``check_step(name, index)`` after each move, so the figure's own test says
what a step shows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from browser import new_page, switch_palette
from figure_text import MIN_PX, measure
from playwright.sync_api import Browser, Locator, Page, expect
from support import ROOT

from mlblog.posts import check_all


def post_url(post: Path) -> str:
    """The built site's path of a post (docs/blog/posts/NAME.md)."""
    records, problems = check_all(ROOT / "docs")
    assert not problems, problems
    return next(r.url for r in records if r.file == f"blog/posts/{post.name}")

# Phone and desktop widths, both palettes, clicks and keys: the views every stepper is driven in.
# Every step is walked in the two light views (one by keys, one by clicks); in the dark ones each
# scenario is chosen and shown at both ends, since what a step shows is the same script in every view.
EVERY_VIEW = pytest.mark.parametrize(
    ("width", "scheme", "keyboard", "every_step"),
    [(390, "default", True, True), (390, "slate", False, False), (1280, "default", False, True),
     (1280, "slate", True, False)],
    ids=["390-light-keys", "390-dark-clicks", "1280-light-clicks", "1280-dark-keys"])


def press(root: Locator, page: Page, button: str, keyboard: bool) -> None:
    target = root.get_by_role("button", name=button, exact=True)
    if keyboard:
        target.focus()
        page.keyboard.press("Enter")
    else:
        target.click()


def open_figure(browser: Browser, base: str, path: str, figure: str, width: int, scheme: str):
    page, rec = new_page(browser, base, viewport={"width": width, "height": 900})
    page.goto(f"{base}/{path}")
    switch_palette(page, scheme)
    root = page.locator(figure)
    expect(root).to_have_class(re.compile(r"\bifig--live\b"))
    root.scroll_into_view_if_needed()
    return page, rec, root


def drive_every_step(page: Page, root: Locator, traces: dict, keyboard: bool,
                     check_step: Callable[[str, int], None], every_step: bool = True) -> None:
    """Each scenario: its first step; with every_step, each step forward, one back and the first
    again; then its last step."""
    for i, (name, scenario) in enumerate(traces.items()):
        select = root.get_by_role("combobox", name="Scenario", exact=True)
        if keyboard:  # the next scenario by keyboard: the list has focus, the arrow moves on
            if i:
                select.focus()
                page.keyboard.press("ArrowDown")
        else:
            select.select_option(label=scenario["title"])
        check_step(name, 0)
        expect(root.get_by_role("button", name="Previous step", exact=True)).to_be_disabled()
        if every_step:
            for index in range(1, len(scenario["steps"])):
                press(root, page, "Next step", keyboard)
                check_step(name, index)
            expect(root.get_by_role("button", name="Next step", exact=True)).to_be_disabled()
            press(root, page, "Previous step", keyboard)
            check_step(name, len(scenario["steps"]) - 2)
            press(root, page, "First step", keyboard)
            check_step(name, 0)
        press(root, page, "Last step", keyboard)
        check_step(name, len(scenario["steps"]) - 1)
        expect(root.get_by_role("button", name="Next step", exact=True)).to_be_disabled()


def check_live_figure(page: Page, rec, root: Locator, note: str, fig_id: str, width: int) -> None:
    """The readout is announced, and the figure reads at 11 px or more without side-scrolling,
    with no request leaving the site and no script error."""
    expect(root.locator(note)).to_have_attribute("aria-live", "polite")
    smallest = next(f for f in measure(page) if f["id"] == fig_id)
    assert smallest["smallest"] >= MIN_PX, smallest
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert rec.external == [] and rec.errors == []
