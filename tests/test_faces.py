"""The sync faces keep their async cores' signatures: the session, the gateway, the assertions.

Each public method of the async core has a method of the same name on its sync face, with the
same parameters (names, kinds, defaults), so the two cannot drift apart unseen.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from webmcp_harness.agent.gateway import Gateway, SyncGateway
from webmcp_harness.session import WebMCPSession as AsyncSession
from webmcp_harness.sync_api import WebMCPSession as SyncSession
from webmcp_harness.testing.assertions import AsyncSessionAssertions, SessionAssertions

PAIRS = [
    pytest.param(AsyncSession, SyncSession, id="session"),
    pytest.param(Gateway, SyncGateway, id="gateway"),
    pytest.param(AsyncSessionAssertions, SessionAssertions, id="assertions"),
]
# Methods of an async core its sync face does not offer (yet), by name.
ASYNC_ONLY = {
    AsyncSession: {"on_change"},
    Gateway: {"hold", "run"},
}
# Constructors differ on purpose: a sync face wraps its core; `attach` takes the sync Page.
NOT_COMPARED = {"__init__"}


def _methods(cls: type) -> dict[str, Any]:
    return {
        name: member
        for name, member in inspect.getmembers(cls, callable)
        if not name.startswith("_") and not isinstance(member, type)
    }


def _shape(function: Any) -> list[tuple[str, Any, Any]]:
    parameters = inspect.signature(function).parameters.values()
    return [(p.name, p.kind, p.default) for p in parameters]


@pytest.mark.parametrize(("core", "face"), PAIRS)
def test_the_sync_face_has_every_method_of_its_async_core(core: type, face: type) -> None:
    missing = set(_methods(core)) - set(_methods(face)) - ASYNC_ONLY.get(core, set())
    assert not missing, f"{face.__qualname__} lacks {sorted(missing)} of {core.__qualname__}"


@pytest.mark.parametrize(("core", "face"), PAIRS)
def test_each_method_of_the_sync_face_takes_what_its_async_core_takes(
    core: type, face: type
) -> None:
    ours, theirs = _methods(face), _methods(core)
    for name in sorted(set(ours) & set(theirs) - NOT_COMPARED):
        assert _shape(ours[name]) == _shape(theirs[name]), (
            f"{face.__qualname__}.{name}{inspect.signature(ours[name])} != "
            f"{core.__qualname__}.{name}{inspect.signature(theirs[name])}"
        )


@pytest.mark.parametrize(("core", "face"), PAIRS)
def test_what_the_sync_face_leaves_out_is_still_on_its_core(core: type, face: type) -> None:
    assert ASYNC_ONLY.get(core, set()) <= set(_methods(core))
