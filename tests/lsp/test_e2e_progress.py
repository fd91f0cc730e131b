"""Work-done progress: checking a module shows a progress bar in the editor, which can cancel it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from helpers import SPLIT_MLP, copy_module
from helpers.lsp import next_diagnostics, open_file, still_serving, write_large_module

pytestmark = pytest.mark.asyncio(loop_scope="module")
# About 15 MB: its check lasts about a second, well past the 0.2 s before a bar is shown, so that
# the bar is seen and can be cancelled before the check ends (a 5 MB module is checked in 0.5 s).
COPIES = 2280


def progress_of(client: LanguageClient, title: str) -> list[str | int]:
    """The token of every progress sequence the server began with `title`."""
    return [token for token, reports in client.progress_reports.items()
            if reports and isinstance(reports[0], types.WorkDoneProgressBegin) and reports[0].title == title]


async def ended(client: LanguageClient, token: str | int, timeout: float = 30) -> types.WorkDoneProgressEnd:
    """The end of the progress sequence `token`, once it has come."""
    async def end() -> types.WorkDoneProgressEnd:
        while not isinstance(client.progress_reports[token][-1], types.WorkDoneProgressEnd):
            await asyncio.sleep(0.01)
        return client.progress_reports[token][-1]  # type: ignore[return-value]

    return await asyncio.wait_for(end(), timeout)


async def test_checking_a_large_module_shows_progress_from_begin_to_end(client: LanguageClient,
                                                                        tmp_path: Path) -> None:
    path = write_large_module(tmp_path, Path(f"{SPLIT_MLP}.txt"), copies=COPIES)
    client.diagnostics.pop(path.as_uri(), None)
    uri = open_file(client, path)
    await next_diagnostics(client, uri, timeout=120)  # the opened file's own, before its companions are checked
    [token] = progress_of(client, f"Checking {path.name.removesuffix('.txt')}")
    end = await ended(client, token, timeout=120)
    reports = client.progress_reports[token]
    begin = reports[0]
    assert isinstance(begin, types.WorkDoneProgressBegin) and begin.cancellable and begin.percentage == 0
    assert end.message is not None and end.message.endswith(" problem(s)")
    percentages = [report.percentage for report in reports[1:-1]]  # type: ignore[attr-defined]
    assert percentages == sorted(percentages) and all(0 <= p <= 100 for p in percentages)


async def test_a_check_that_takes_milliseconds_shows_no_progress_bar(client: LanguageClient, tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    uri = open_file(client, Path(f"{stem}.txt"))
    assert await next_diagnostics(client, uri) == []
    assert progress_of(client, "Checking module_0000.jit_mlp.cpu_after_optimizations") == []


async def test_cancelling_the_progress_bar_stops_the_check(client: LanguageClient, tmp_path: Path) -> None:
    """The user cancels the check of a 15 MB module from its progress bar: the bar ends as cancelled and
    no diagnostics are published for that check; the server goes on serving."""
    path = write_large_module(tmp_path, Path(f"{SPLIT_MLP}.txt"), copies=COPIES)
    client.diagnostics.pop(path.as_uri(), None)
    earlier = set(client.progress_reports)  # another test may have checked a module of the same name
    open_file(client, path)
    title = f"Checking {path.name.removesuffix('.txt')}"

    async def begun() -> str:
        while True:
            for token, reports in list(client.progress_reports.items()):
                if token not in earlier and reports and getattr(reports[0], "title", None) == title:
                    return str(token)
            await asyncio.sleep(0.01)

    token = await asyncio.wait_for(begun(), 30)
    client.protocol.notify(types.WINDOW_WORK_DONE_PROGRESS_CANCEL, types.WorkDoneProgressCancelParams(token))

    assert (await ended(client, token)).message == "cancelled"
    assert path.as_uri() not in client.diagnostics
    await still_serving(client)
