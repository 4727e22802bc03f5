"""Take screenshots of the demo shop for the docs: ``python scripts/screenshot.py``.

Serves ``demo_site/`` on a free port, opens it in headless Chromium (with WebMCP on, as the
harness runs it) and writes ``docs/demo-shop.png`` (the catalog, 1200x800). ``--page`` and
``--out`` shoot another page elsewhere, e.g. ``--page "/checkout?items=tidal-tee:M:1"
--out /tmp/checkout.png``. The browser is $WEBMCP_BROWSER_PATH, else ``chromium`` on PATH, else
Playwright's own.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))  # bench/

from bench.check_scale import serve  # noqa: E402 (after the paths are set)

from webmcp_harness.testing.demo import serve_demo  # noqa: E402

LAUNCH_ARGS = [
    "--enable-features=WebMCP,WebMCPTesting,DevToolsWebMCPSupport",
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--hide-scrollbars",
    "--font-render-hinting=none",
]


def browser_path() -> str | None:
    """The Chromium to use, or None for Playwright's own."""
    return os.environ.get("WEBMCP_BROWSER_PATH") or shutil.which("chromium") or None


def shoot(page: Page, url: str, out: Path) -> None:
    """Load ``url``, wait until the shop (and its iframes) are ready, and save a screenshot."""
    page.goto(url)
    for frame in page.frames:
        frame.wait_for_function("window.__demo && window.__demo.ready")
    page.evaluate("document.fonts.ready")
    out.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out), animations="disabled")
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")


def shoot_report(width: int, height: int, out: Path) -> None:
    """The top of the HTML report of a check of tests/pages/report/flawed-shop.html."""
    with serve(ROOT / "tests" / "pages") as base, tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.html"
        url = f"{base}/report/flawed-shop.html"
        command = [sys.executable, "-m", "webmcp_harness", "check", url, "--html", str(report)]
        done = subprocess.run(command, capture_output=True, timeout=180, check=False)
        if not report.is_file():
            raise SystemExit(done.stderr.decode(errors="replace"))
        html = report.read_text(encoding="utf-8").replace(base, "https://harbour.example")
        report.write_text(html, encoding="utf-8")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=browser_path(), args=LAUNCH_ARGS)
            try:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(report.as_uri())
                out.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(out), animations="disabled")
            finally:
                browser.close()
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=None)
    parser.add_argument("--page", default="/", help="the shop page to shoot (default: the catalog)")
    parser.add_argument("--report", action="store_true", help="shoot a check's HTML report")
    args = parser.parse_args(argv)
    if args.report:
        out = args.out or ROOT / "docs" / "check-report.png"
        shoot_report(args.width, args.height or 1000, out.resolve())
        return 0
    args.out = args.out or ROOT / "docs" / "demo-shop.png"
    args.height = args.height or 800

    with serve_demo() as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=browser_path(), args=LAUNCH_ARGS)
        try:
            context = browser.new_context(
                viewport={"width": args.width, "height": args.height}, device_scale_factor=1
            )
            page = context.new_page()
            shoot(page, server.url + args.page, args.out.resolve())
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
