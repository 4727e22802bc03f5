"""Per-URL rules of `check --config FILE`: which pages an entry matches, what it ignores, and a
clear error for a file that cannot be used (no browser needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from webmcp_harness.conformance.config import ConfigError, PageConfig, PageRule, load_config
from webmcp_harness.conformance.findings import Collector, Severity


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "check.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_path_glob_matches_the_urls_path_alone_and_a_url_glob_the_whole_url() -> None:
    by_path = PageRule(1, path="/docs/*", allow_no_tools=True)
    assert by_path.matches("http://a.test/docs/intro?x=1#top")
    assert by_path.matches("http://a.test/docs/deep/page.html")  # * crosses /
    assert not by_path.matches("http://a.test/docs")
    assert not by_path.matches("http://a.test/Docs/intro")  # case matters
    assert PageRule(1, path="/", allow_no_tools=True).matches("http://a.test")
    by_url = PageRule(2, url="http://a.test/#/help*", allow_no_tools=True)
    assert by_url.matches("http://a.test/#/help/faq")
    assert not by_url.matches("http://b.test/#/help")
    assert not by_url.matches("http://a.test/")


def test_a_file_of_entries_loads_in_order_with_their_settings(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[[page]]
path = "/about"
allow-no-tools = true

[[page]]
url = "http://127.0.0.1:8000/*"
ignore = ["metadata.description-useful", "metadata.description-useful"]
reason = "known: ticket 12"
""",
    )
    config = load_config(path)
    assert config.source == str(path)
    assert config.rules == (
        PageRule(1, path="/about", allow_no_tools=True),
        PageRule(2, url="http://127.0.0.1:8000/*", ignore=("metadata.description-useful",),
                 reason="known: ticket 12"),
    )  # fmt: skip
    assert config.allows_no_tools("http://127.0.0.1:8000/about")
    assert not config.allows_no_tools("http://127.0.0.1:8000/")
    assert load_config(write(tmp_path, "")).rules == ()


def test_ignored_findings_leave_the_page_saying_which_entry_and_their_targets_show_skipped() -> (
    None
):
    page = "http://a.test/shop"
    col = Collector(page)
    col.add("metadata.description-useful", "Say more about what it does.", tool="get_x")
    col.add("metadata.description-present", "Describe the tool.", tool="get_y")
    config = PageConfig("c.toml", (PageRule(3, path="/shop", ignore=(
        "metadata.description-useful",), reason="wording is fixed upstream"),))  # fmt: skip
    ignored = config.ignore(col)
    assert [(f.check, f.tool, f.severity) for f in ignored] == [
        ("metadata.description-useful", "get_x", Severity.WARNING)
    ]
    why = "ignored by c.toml entry 3: wording is fixed upstream"
    assert ignored[0].detail["ignored"] == why
    assert [f.check for f in col.findings] == ["metadata.description-present"]
    assert [(t.check, t.skipped) for t in col.targets] == [
        ("metadata.description-useful", why),
        ("metadata.description-present", None),
    ]
    other = Collector("http://a.test/cart")
    other.add("metadata.description-useful", "Say more about what it does.", tool="get_x")
    assert config.ignore(other) == []
    assert len(other.findings) == 1


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[[page]\n", "is not valid TOML"),
        ("pages = []\n", "unknown top-level key 'pages'"),
        ('page = "x"\n', "write each as [[page]]"),
        ("[[page]]\nallow-no-tools = true\n", "entry 1: give exactly one of path"),
        ('[[page]]\npath = "/a"\nurl = "*"\nallow-no-tools = true\n', "exactly one of path"),
        ('[[page]]\npath = "about"\nallow-no-tools = true\n', "must start with /"),
        ('[[page]]\npath = "/a"\nallow_no_tools = true\n', "unknown key 'allow_no_tools'"),
        ('[[page]]\npath = "/a"\nallow-no-tools = "yes"\n', "allow-no-tools must be true"),
        ('[[page]]\npath = "/a"\nignore = "metadata.x"\n', "ignore must be a list"),
        ('[[page]]\npath = "/a"\nignore = ["metadata.nope"]\n', "'metadata.nope', which is not"),
        ('[[page]]\npath = "/a"\n', "does nothing"),
        ('[[page]]\npath = "/a"\nallow-no-tools = true\n[[page]]\npath = 1\n', "entry 2: path"),
    ],
)
def test_a_file_that_cannot_be_used_is_an_error_naming_the_file_the_entry_and_the_fix(
    tmp_path: Path, text: str, says: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert raised.value.message.startswith(f"{path}: ")
    assert says in raised.value.message


def test_a_missing_file_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read it"):
        load_config(tmp_path / "none.toml")
