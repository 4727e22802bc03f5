"""URLs from pages and users are split and joined without raising, whatever the text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from webmcp_harness.core.urls import (
    Origin,
    defrag_url,
    join_url,
    origin_of,
    split_origin,
    split_url,
)

UNSPLITTABLE = "http://[x/path"  # an IPv6 bracket that never closes: urlsplit raises ValueError


def test_a_url_python_cannot_split_is_all_path_with_no_scheme_or_host() -> None:
    parts = split_url(UNSPLITTABLE)
    assert (parts.scheme, parts.netloc, parts.path) == ("", "", UNSPLITTABLE)


def test_a_good_url_is_split_as_python_splits_it() -> None:
    parts = split_url("https://shop.example:8443/cart?x=1#top")
    assert (parts.scheme, parts.netloc, parts.path, parts.query, parts.fragment) == (
        "https",
        "shop.example:8443",
        "/cart",
        "x=1",
        "top",
    )


def test_joining_keeps_the_url_when_either_side_cannot_be_split() -> None:
    assert join_url("http://127.0.0.1:8000/a/", "b.html") == "http://127.0.0.1:8000/a/b.html"
    assert join_url("http://127.0.0.1:8000/", "//[x/") == "//[x/"
    assert join_url(UNSPLITTABLE, "b.html") == "b.html"


def test_a_fragment_is_taken_off_and_unsplittable_text_is_kept_whole() -> None:
    assert defrag_url("http://a.example/#/results") == ("http://a.example/", "/results")
    assert defrag_url(UNSPLITTABLE + "#x") == (UNSPLITTABLE + "#x", "")


@given(st.text(), st.text())
def test_no_text_makes_them_raise(base: str, url: str) -> None:
    split_url(url)
    join_url(base, url)
    defrag_url(url)


def test_the_origin_is_written_as_the_browser_writes_it() -> None:
    assert origin_of("http://127.0.0.1:8000/shop/cart?x=1#top") == "http://127.0.0.1:8000"
    assert origin_of("HTTPS://Shop.Example:443/") == "https://shop.example"  # default port, case
    assert origin_of("http://ada:secret@shop.example/") == "http://shop.example"  # no user
    assert origin_of("http://[::1]:8001/") == "http://[::1]:8001"


def test_a_url_without_a_host_or_that_cannot_be_read_has_no_origin() -> None:
    for url in ("about:blank", "data:text/html,x", "file:///tmp/x.html", "", UNSPLITTABLE):
        assert origin_of(url) == "", url
        assert split_origin(url) is None, url
    assert split_origin("http://shop.example:port/") is None  # a port that is no number


def test_the_origin_in_parts_compares_as_a_tuple() -> None:
    assert split_origin("http://localhost:8001/w.html") == Origin("http", "localhost", 8001)
    assert split_origin("https://a.example/") == ("https", "a.example", None)
    assert str(Origin("http", "::1", 9)) == "http://[::1]:9"


@given(st.text())
def test_no_text_makes_the_origin_raise(url: str) -> None:
    origin = split_origin(url)
    assert origin_of(url) == ("" if origin is None else str(origin))
