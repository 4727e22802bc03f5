"""URLs from pages and users are split and joined without raising, whatever the text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from webmcp_harness.core.urls import defrag_url, join_url, split_url

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
