"""A small, quiet threaded HTTP server: the demo shop in ``demo_site/``, or any folder of pages.

WebMCP needs a secure context, so pages must be served over http on 127.0.0.1 (or https), never
opened as ``file:``. ``serve_demo()`` serves the shop; ``serve_folder(path)`` serves your own pages.
Standard library only: ``bench/check_scale.py``'s floor loads this file alone, by its path.
"""

from __future__ import annotations

import json
import mimetypes
import posixpath
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar
from urllib.parse import unquote, urlsplit

__all__ = ["DemoServer", "demo_site_path", "load_expectations", "serve_demo", "serve_folder"]

HOST = "127.0.0.1"
WIDGET_HOST = "localhost"
"""The support widget's host: another site than 127.0.0.1, so the widget is a cross-site frame."""
EMBED_PATH = "/support-frame"
"""The catalog's iframe loads this; it redirects to the widget on its own origin."""

CONTENT_TYPES: dict[str, str] = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
    ".webmanifest": "application/manifest+json",
}


def demo_site_path() -> Path:
    """Where the demo site's files are: inside the installed wheel, else the repository's copy."""
    package = Path(__file__).resolve().parents[1]  # webmcp_harness/
    packaged = package / "_demo_site"
    if packaged.is_dir():
        return packaged
    return package.parents[1] / "demo_site"


def load_expectations() -> dict[str, Any]:
    """The demo's scenarios (``expectations.json``): what each tool call on the shop should give."""
    data: dict[str, Any] = json.loads(
        (demo_site_path() / "expectations.json").read_text(encoding="utf-8")
    )
    return data


def content_type(path: Path) -> str:
    """The Content-Type header for a file of the site."""
    known = CONTENT_TYPES.get(path.suffix.lower())
    if known:
        return known
    guessed, _ = mimetypes.guess_type(path.name)
    return guessed or "application/octet-stream"


def resolve_site_path(root: Path, url_path: str) -> Path | None:
    """The file that a request path names under ``root``, or None.

    ``/`` is the catalog (``index.html``), ``/checkout`` is ``checkout.html``; files are also served
    by their own names (``/assets/style.css``). Nothing outside ``root`` is ever returned: ``..``
    segments, encoded or not, backslashes, NUL bytes, hidden files and symlinks that leave the
    site all give None.
    """
    path = unquote(url_path)
    if "\x00" in path or "\\" in path:
        return None
    parts = [p for p in path.split("/") if p]
    if any(p.startswith(".") for p in parts):
        return None
    normal = posixpath.normpath("/" + "/".join(parts))
    if normal == "/":
        candidates = ["index.html"]
    else:
        rel = normal.lstrip("/")
        candidates = [rel] if posixpath.splitext(rel)[1] else [rel + ".html", rel]
    base = root.resolve()
    for rel in candidates:
        target = (base / rel).resolve()
        if target.is_relative_to(base) and target.is_file():
            return target
    return None


class _Handler(BaseHTTPRequestHandler):
    """Serves the site's files; quiet, GET and HEAD only."""

    server_version = "TidewaterDemo/1.0"
    root: ClassVar[Path]
    widget_origin: ClassVar[str] = ""

    def do_GET(self) -> None:
        self._serve(body=True)

    def do_HEAD(self) -> None:
        self._serve(body=False)

    def _serve(self, *, body: bool) -> None:
        path = urlsplit(self.path).path
        if path == EMBED_PATH:
            self.send_response(HTTPStatus.FOUND)
            self.send_header("Location", f"{self.widget_origin}/support-widget")
            self.send_header("Content-Length", "0")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            return
        target = resolve_site_path(self.root, path)
        if target is None or target.name == "404.html":
            self._not_found(body=body)
            return
        data = target.read_bytes()
        if target.suffix == ".html" and self.widget_origin:
            # the embed names the widget's own origin: allow="tools" (its allowlist is the src's
            # origin) would not follow a redirect to another origin
            embed = f'src="{self.widget_origin}/support-widget"'.encode()
            data = data.replace(f'src="{EMBED_PATH}"'.encode(), embed)
        self._send(HTTPStatus.OK, data, content_type(target), body=body)

    def _not_found(self, *, body: bool) -> None:
        page = self.root / "404.html"
        data = (
            page.read_bytes()
            if page.is_file()
            else b"<!doctype html><title>Not found</title><h1>Not found</h1>"
        )
        self._send(HTTPStatus.NOT_FOUND, data, CONTENT_TYPES[".html"], body=body)

    def _send(self, status: HTTPStatus, data: bytes, ctype: str, *, body: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if body:
            try:
                self.wfile.write(data)
            except ConnectionError:
                # The browser went away mid-answer (a navigation, a closed tab): nothing to do.
                self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: no line per request."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet about clients that hung up (a browser dropping a connection is normal)."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class DemoServer:
    """The demo shop (or the folder ``root``) served on ``http://127.0.0.1:PORT`` from a thread.

    The support-chat widget the catalog embeds comes from a second origin,
    ``http://localhost:WIDGET_PORT`` (`widget_url`): another site, so Chromium runs it in a
    process of its own, as real third-party widgets are. Use it as a context manager, or call
    ``start()`` and ``stop()``. ``port=0`` picks a free port (the widget's is always free).
    ``/`` serves ``index.html``, ``/checkout`` serves ``checkout.html``, other files by name.
    It prints nothing, not even when a browser hangs up mid-answer.
    """

    def __init__(self, port: int = 0, *, host: str = HOST, root: Path | None = None) -> None:
        self.host = host
        self.root = Path(root) if root is not None else demo_site_path()
        self._requested_port = port
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._widget_httpd: _Server | None = None
        self._widget_thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The port served on (the requested one until started)."""
        if self._httpd is not None:
            return int(self._httpd.server_address[1])
        return self._requested_port

    @property
    def url(self) -> str:
        """The base URL, like ``http://127.0.0.1:8765`` (no trailing slash)."""
        return f"http://{self.host}:{self.port}"

    @property
    def widget_url(self) -> str:
        """The support widget's origin, like ``http://localhost:8766`` ("" until started)."""
        if self._widget_httpd is None:
            return ""
        host = WIDGET_HOST if self.host == HOST else self.host
        return f"http://{host}:{self._widget_httpd.server_address[1]}"

    @property
    def running(self) -> bool:
        """Whether the server is serving."""
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> DemoServer:
        """Bind and serve in a daemon thread; returns self. Raises OSError if the port is taken."""
        if self._httpd is not None:
            return self
        if not self.root.is_dir():
            raise FileNotFoundError(f"no folder to serve at {str(self.root)!r}")
        widget: type[_Handler] = type(
            "DemoWidgetHandler", (_Handler,), {"root": self.root.resolve()}
        )
        self._widget_httpd = _Server((self.host, 0), widget)
        widget.widget_origin = self.widget_url
        try:
            handler = type(
                "DemoHandler",
                (_Handler,),
                {"root": self.root.resolve(), "widget_origin": self.widget_url},
            )
            self._httpd = _Server((self.host, self._requested_port), handler)
        except OSError:
            self._widget_httpd.server_close()
            self._widget_httpd = None
            raise
        self._thread = _serve(self._httpd, f"webmcp-demo-{self.port}")
        self._widget_thread = _serve(self._widget_httpd, f"webmcp-demo-widget-{self.port}")
        return self

    def stop(self) -> None:
        """Stop serving and free the port. Safe to call twice."""
        servers = [(self._httpd, self._thread), (self._widget_httpd, self._widget_thread)]
        # Both at once: each shutdown waits for its loop's next poll.
        stoppers = [threading.Thread(target=h.shutdown) for h, _ in servers if h is not None]
        for stopper in stoppers:
            stopper.start()
        for stopper in stoppers:
            stopper.join()
        for httpd, thread in servers:
            if httpd is not None:
                httpd.server_close()
            if thread is not None:
                thread.join(timeout=5)
        self._httpd, self._thread = None, None
        self._widget_httpd, self._widget_thread = None, None

    def wait(self, timeout: float | None = None) -> None:
        """Block until the server stops (for a command that serves until interrupted)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def __enter__(self) -> DemoServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<DemoServer {self.url} {state}>"


_POLL = 0.05  # seconds: how soon a server notices stop()


def _serve(httpd: _Server, name: str) -> threading.Thread:
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": _POLL}, name=name, daemon=True
    )
    thread.start()
    return thread


def serve_demo(port: int = 0) -> DemoServer:
    """Start the demo shop on 127.0.0.1 (``port=0``: a free port) and return the running server."""
    return DemoServer(port).start()


def serve_folder(folder: str | Path, port: int = 0) -> DemoServer:
    """Serve the pages in folder on 127.0.0.1 (``port=0``: a free port); returns the running server.

    ``/`` is ``folder/index.html`` and ``/page`` is ``folder/page.html``; hidden files and anything
    outside folder are never served. Stop it with ``stop()``, or use ``DemoServer(root=folder)`` as
    a context manager.
    """
    return DemoServer(port, root=Path(folder)).start()
