"""The browser's switches: WebMCP on, Playwright's own feature lists kept, the browser UI quiet."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import playwright
from playwright.async_api import async_playwright

from webmcp_harness.session.browser import (
    PLAYWRIGHT_DISABLED,
    PLAYWRIGHT_ENABLED,
    find_browser,
    launch_args,
    merge_features,
)

DRIVER = Path(playwright.__file__).parent / "driver" / "package" / "lib"


def playwright_list(name: str) -> list[str]:
    """The features the installed Playwright's driver switches on or off for Chromium."""
    for bundle in sorted(DRIVER.glob("*.js")):
        text = bundle.read_text(encoding="utf-8", errors="replace")
        found = re.search(rf"{name} = (?:\(\) => )?\[(.*?)\]", text, re.S)
        if found:
            body = re.sub(r"//[^\n]*", "", found.group(1))
            return re.findall(r'"([A-Za-z0-9]+)"', body)
    raise AssertionError(f"{name} not found in Playwright's driver under {DRIVER}")


def test_our_feature_switches_repeat_the_installed_playwrights_lists() -> None:
    # Chromium reads only the last --disable-features: without them, ours would undo Playwright's.
    assert set(playwright_list("disabledFeatures")) <= set(PLAYWRIGHT_DISABLED)
    assert set(playwright_list("enabledFeatures")) <= set(PLAYWRIGHT_ENABLED)


def test_launch_args_pass_each_feature_switch_once() -> None:
    args = launch_args()
    assert len([a for a in args if a.startswith("--enable-features=")]) == 1
    assert len([a for a in args if a.startswith("--disable-features=")]) == 1
    assert "WebMCP" in next(a for a in args if a.startswith("--enable-features=")).split("=")[1]


def test_features_merge_into_the_last_switch_and_the_callers_word_stands() -> None:
    given = ["--disable-features=Old", "--disable-features=WebMCP", "--mute-audio"]
    merged = merge_features(given, enable=["WebMCP", "A"], disable=["B", "WebMCP"])
    assert merged == [
        "--disable-features=Old",
        "--disable-features=WebMCP,B",
        "--mute-audio",
        "--enable-features=A",
    ]


def test_a_launched_browser_loads_no_address_bar_popups() -> None:
    async def targets() -> list[str]:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=find_browser(), args=launch_args())
            try:
                page = await browser.new_page()
                await page.goto("about:blank")
                cdp = await browser.new_browser_cdp_session()
                infos = (await cdp.send("Target.getTargets"))["targetInfos"]
                return [str(t["url"]) for t in infos]
            finally:
                await browser.close()

    urls = asyncio.run(targets())
    assert "about:blank" in urls
    assert not [u for u in urls if "omnibox" in u], urls
