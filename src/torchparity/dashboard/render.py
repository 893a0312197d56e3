"""The dashboard page: one HTML file rendered from the collected facts with one Jinja2 template
(inline CSS and script, nothing fetched), and the evidence logs written beside it.

The page is opened as a file, with no server: a cell links its log as ``evidence/<sha256>.txt``
relative to the page (read from the store, which checks the bytes against the SHA-256), and names the
``torchparity show`` command that prints it from the store.
"""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2

from ..errors import UsageError
from ..fsutil import atomic_write, write_regular
from ..store import Store
from .chart import chart, when
from .model import NO_EVIDENCE, STATE_ORDER, STATE_WORDS, Dashboard, state_rank

PAGE = "index.html"
EVIDENCE = "evidence"


@functools.lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("torchparity.dashboard", "templates"),
        autoescape=True,  # every fact from the store is text, never markup
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(when=when, rank=state_rank)
    return env


def log_href(sha256: str) -> str:
    """Where a log lies, relative to the page."""
    return f"{EVIDENCE}/{sha256}.txt"


def render_page(dash: Dashboard, *, logs: bool = True, title: str = "torchparity dashboard") -> str:
    """The page's HTML; ``logs``: cells link their logs in ``evidence/`` (``write_dashboard`` puts them)."""
    return (
        _environment()
        .get_template("dashboard.html.j2")
        .render(
            dash=dash,
            title=title,
            logs=logs,
            log_href=log_href,
            chart=chart(dash.burndown),
            counts=dash.state_counts(),
            states=STATE_ORDER,
            state_words=STATE_WORDS,
            no_evidence=NO_EVIDENCE,
        )
    )


def write_logs(dash: Dashboard, store: Store, folder: Path) -> int:
    """Every cell's log as ``folder/<sha256>.txt`` (checked against its SHA-256 as it is read);
    returns how many were written."""
    shas = sorted(
        {c.evidence.log_sha256 for r in dash.rows for c in r.cells if c and c.evidence.log_sha256}
    )
    folder.mkdir(parents=True, exist_ok=True)
    for sha in shas:
        path = folder / f"{sha}.txt"
        data = store.blobs.read(sha)  # StoreCorrupt (exit 3) when the bytes changed
        if not (path.is_file() and path.read_bytes() == data):
            atomic_write(path, data)
    return len(shas)


def write_dashboard(
    dash: Dashboard,
    out_dir: Path,
    store: Store,
    *,
    logs: bool = True,
    title: str = "torchparity dashboard",
) -> Path:
    """Write ``out_dir/index.html`` (and with ``logs`` the logs in ``out_dir/evidence/``); returns the page."""
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(
            f"--out {out_dir} is not a folder; pass a folder to write the dashboard into"
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    if logs:
        write_logs(dash, store, out_dir / EVIDENCE)
    page = out_dir / PAGE
    write_regular(page, render_page(dash, logs=logs, title=title), "--out")
    return page


__all__ = ["EVIDENCE", "PAGE", "log_href", "render_page", "write_dashboard", "write_logs"]
