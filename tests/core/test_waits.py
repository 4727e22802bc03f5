"""`bounded`: a wait that ends in time, whatever it waits on; only the caller's cancel goes on."""

from __future__ import annotations

import asyncio

import pytest

from webmcp_harness.core.waits import bounded


async def _never() -> None:
    await asyncio.get_running_loop().create_future()


async def _fails() -> None:
    raise RuntimeError("the page went away")


async def _cancelled_inside() -> None:
    raise asyncio.CancelledError  # as Playwright ends a call when its page closes


def test_a_value_in_time_is_given_back() -> None:
    async def answer() -> int:
        return 42

    assert asyncio.run(bounded(answer(), 1)) == 42


def test_a_wait_that_fails_or_takes_too_long_is_none() -> None:
    assert asyncio.run(bounded(_never(), 0.05)) is None
    assert asyncio.run(bounded(_fails(), 1)) is None


def test_a_cancel_that_is_not_the_callers_is_none() -> None:
    assert asyncio.run(bounded(_cancelled_inside(), 1)) is None


def test_the_callers_own_cancel_propagates() -> None:
    async def main() -> None:
        waiting = asyncio.ensure_future(bounded(_never(), 30))
        await asyncio.sleep(0)  # sleep-ok: one yield to the loop, so bounded starts waiting
        waiting.cancel()
        await waiting

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(main())
