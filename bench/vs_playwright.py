"""What Playwright's own `page.webmcp` and a `WebMCPSession` each give on the same pages.

Run with `.venv/bin/python -m bench.vs_playwright` (`--json` for one JSON document). It serves the
demo shop (and, for the cross-site row, a page on 127.0.0.1 whose iframe is the shop's support
widget on localhost), and prints one row per case: what `page.webmcp.call_tool` (or `tools`) did,
and the code the harness gave. It backs the table at the top of the README.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Page, async_playwright

from webmcp_harness import WebMCPSession, launch, serve_demo, serve_folder, tool_error_code

ROOT = Path(__file__).resolve().parent.parent
POLYFILL = ROOT / "tests"
WAIT = 4.0  # seconds either side is given for a call that should end at once


def _said(exc: BaseException) -> str:
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"raises {type(exc).__name__}: {first[:110]}"


async def _playwright(page: Page, tool: str, args: dict[str, Any], frame: Any = None) -> str:
    where = (frame or page.main_frame).webmcp
    start = time.monotonic()
    try:
        got = await where.call_tool(tool, args, timeout=WAIT * 1000)
    except Exception as exc:
        return f"{_said(exc)} (after {time.monotonic() - start:.1f} s)"
    return f"returns {json.dumps(got, ensure_ascii=False)[:110]} ({time.monotonic() - start:.1f} s)"


Case = tuple[str, str, str, dict[str, Any], str | None]

CASES: list[Case] = [
    ("needs_user at once", "/", "subscribe_newsletter", {"email": "sam@example.com"}, None),
    ("a navigating form's JSON-LD", "/track", "track_order", {"order": "TW-10042"}, None),
    (
        "cancel on timeout",
        "/checkout?items=harbor-mug:1&bank=slow",
        "check_payment_status",
        {},
        "window.__demo.cancelled.length",
    ),
    (
        "argument validation",
        "/cart?items=harbor-mug:1",
        "update_quantity",
        {"product_id": "harbor-mug", "quantity": 0},
        None,
    ),
    (
        "error message kept",
        "/product?id=storm-shell",
        "add_to_cart",
        {"size": "M", "quantity": 1},
        None,
    ),
]


async def _fresh(browser: Browser, url: str, body: Callable[[Page], Awaitable[str]]) -> str:
    context = await browser.new_context()
    try:
        page = await context.new_page()
        return await body(page)
    finally:
        await context.close()


def _host_page(folder: str, port: int) -> None:
    """A page on 127.0.0.1 whose iframe is the shop's support widget on localhost (cross-site)."""
    Path(folder, "index.html").write_text(
        '<!doctype html><meta charset="utf-8"><title>host</title>'
        f'<iframe allow="tools" src="http://localhost:{port}/support-widget"></iframe>',
        encoding="utf-8",
    )


async def measure() -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    with serve_demo() as demo, tempfile.TemporaryDirectory() as tmp:
        _host_page(tmp, demo.port)
        with serve_folder(tmp) as host, serve_folder(POLYFILL) as pages:
            async with async_playwright() as p:
                browser = await launch(p)
                for label, path, tool, args, after in CASES:
                    url = demo.url + path

                    async def pw(
                        page: Page,
                        url: str = url,
                        tool: str = tool,
                        args: dict[str, Any] = args,
                        after: str | None = after,
                    ) -> str:
                        await page.goto(url)
                        said = await _playwright(page, tool, args)
                        if after:
                            await asyncio.sleep(0.5)  # the harness waits on its own event
                            said += f"; page saw cancel: {await page.evaluate(after)}"
                        return said

                    async def ours(
                        page: Page,
                        url: str = url,
                        tool: str = tool,
                        args: dict[str, Any] = args,
                        after: str | None = after,
                    ) -> str:
                        session_said = await _harness_nav(page, url, tool, args)
                        if after:
                            await page.wait_for_function(f"{after} >= 1", timeout=5000)
                            session_said += f"; page saw cancel: {await page.evaluate(after)}"
                        return session_said

                    rows.append(
                        {
                            "case": label,
                            "playwright": await _fresh(browser, url, pw),
                            "harness": await _fresh(browser, url, ours),
                        }
                    )

                async def pw_frames(page: Page) -> str:
                    await page.goto(host.url + "/")
                    main = await page.webmcp.tools()
                    child = page.frames[1] if len(page.frames) > 1 else None
                    try:
                        inner = await child.webmcp.tools() if child else []
                        got = f"page.webmcp: {len(main)} tools; frame.webmcp: {len(inner)}"
                    except Exception as exc:
                        got = f"page.webmcp: {len(main)} tools; frame.webmcp {_said(exc)}"
                    return got

                async def ours_frames(page: Page) -> str:
                    session = await WebMCPSession.attach(page, timeout=WAIT)
                    try:
                        await page.goto(host.url + "/")
                        await session.wait_for_tool("ask_support", timeout=WAIT)
                        found = await session.tools()
                        return f"{len(found)} tools: " + ", ".join(
                            f"{t.name} @ {t.frame_url}" for t in found
                        )
                    finally:
                        await session.close()

                rows.append(
                    {
                        "case": "cross-site frame",
                        "playwright": await _fresh(browser, host.url, pw_frames),
                        "harness": await _fresh(browser, host.url, ours_frames),
                    }
                )
                await browser.close()

                plain = await launch(p, webmcp=False)
                poly = pages.url + "/pages/polyfill/webmcp-polyfill.html"

                async def pw_poly(page: Page) -> str:
                    await page.goto(poly)
                    try:
                        return f"{len(await page.webmcp.tools(timeout=WAIT * 1000))} tools"
                    except Exception as exc:
                        return _said(exc)

                async def ours_poly(page: Page) -> str:
                    session = await WebMCPSession.attach(page, timeout=WAIT)
                    try:
                        await page.goto(poly)
                        await session.wait_for_tool("echo", timeout=WAIT)
                        found = await session.tools()
                        return f"{len(found)} tools (backend {found[0].backend if found else '-'})"
                    finally:
                        await session.close()

                rows.append(
                    {
                        "case": "polyfilled page (@mcp-b/webmcp-polyfill, WebMCP off)",
                        "playwright": await _fresh(plain, poly, pw_poly),
                        "harness": await _fresh(plain, poly, ours_poly),
                    }
                )
                await plain.close()
    return rows


async def _harness_nav(page: Page, url: str, tool: str, args: dict[str, Any]) -> str:
    session = await WebMCPSession.attach(page, timeout=WAIT)
    try:
        await page.goto(url)
        await session.wait_for_tool(tool, timeout=WAIT)
        start = time.monotonic()
        result = await session.call(tool, args)
        code = tool_error_code(result)
        text = " ".join(c.get("text", "") for c in result.get("content", []) if "text" in c)
        return f"{code or 'ok'} ({time.monotonic() - start:.1f} s): {text[:90]}"
    finally:
        await session.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="Print one JSON document.")
    rows = asyncio.run(measure())
    if parser.parse_args().json:
        print(json.dumps(rows, ensure_ascii=False))
        return
    for row in rows:
        print(
            f"## {row['case']}\n  playwright: {row['playwright']}\n  harness:    {row['harness']}"
        )


if __name__ == "__main__":
    main()
