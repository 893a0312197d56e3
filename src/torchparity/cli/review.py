"""``torchparity review PR_TEXT``: check a submitted PR description's claims against the repository."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from ..config import load_config
from ..errors import ExitCode, UsageError
from ..fsutil import atomic_write
from ..review import read_text, review_text
from ..review.render import LANGS, comment, summary_line, table_rows
from ._app import ConfigOpt, DebugOpt, JsonOpt, app, out

_STYLE = {"verified": "green", "contradicted": "bold red", "unverifiable": "yellow"}


@app.command()
def review(
    pr_text: Annotated[
        str, typer.Argument(metavar="PR_TEXT", help="The PR description: a file, or - for stdin.")
    ],
    repo: Annotated[
        Path, typer.Option("--repo", help="The backend git repository the PR went into.")
    ],
    merge: Annotated[
        str | None,
        typer.Option("--merge", metavar="COMMIT", help="The PR's merge (or squash) commit."),
    ] = None,
    head: Annotated[
        str | None,
        typer.Option(
            "--head",
            metavar="REF",
            help="Check at this branch or commit instead "
            "(default: the target branch the text states).",
        ),
    ] = None,
    target_branch: Annotated[
        str | None,
        typer.Option(
            "--target-branch",
            metavar="B",
            help="The branch the PR went into (default: from the merge bot's message, or --head).",
        ),
    ] = None,
    lang: Annotated[
        str, typer.Option("--lang", help="zh | en: language of the table and the comment.")
    ] = "zh",
    comment_file: Annotated[
        Path | None,
        typer.Option(
            "--comment", metavar="FILE", help="Also write a review comment (Markdown) to FILE."
        ),
    ] = None,
    bundle: Annotated[
        Path | None,
        typer.Option(
            "--bundle",
            metavar="FILE",
            help="torchparity bundle holding the evidence logs the text quotes.",
        ),
    ] = None,
    attestation: Annotated[
        Path | None,
        typer.Option(
            "--attestation",
            metavar="FILE",
            help="in-toto test-result statement to check (FILE.sig beside it when signed).",
        ),
    ] = None,
    allowed_signers: Annotated[
        Path | None,
        typer.Option(
            "--allowed-signers",
            metavar="FILE",
            help="ssh allowed_signers file: whose signatures count.",
        ),
    ] = None,
    json_out: JsonOpt = False,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> int:
    """Verdict per claim: verified, contradicted (with the fact found) or unverifiable (why).

    Exit 1 when any claim is contradicted, 0 otherwise, 2 for bad input.
    """
    if lang not in LANGS:
        raise UsageError(f"--lang {lang}: unknown language; use one of {', '.join(LANGS)}")
    if comment_file is not None and not comment_file.parent.is_dir():
        raise UsageError(f"--comment {comment_file}: folder {comment_file.parent} does not exist")
    result = review_text(
        read_text(pr_text),
        repo,
        load_config(config, repo),
        merge=merge,
        head=head,
        target_branch=target_branch or "",
        bundle=bundle,
        attestation=attestation,
        allowed_signers=allowed_signers,
        source="stdin" if pr_text == "-" else pr_text,
    )
    if comment_file is not None:
        atomic_write(comment_file, comment(result, lang))
    if json_out:
        out.print_json(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        headers, rows = table_rows(result, lang)
        table = Table(*headers, show_lines=False)
        for (line, kind, verdict, text, detail), v in zip(rows, result.verdicts, strict=True):
            table.add_row(
                line, kind, Text(verdict, style=_STYLE[v.verdict]), Text(text), Text(detail)
            )
        if rows:
            out.print(table)
        for note in result.notes:
            out.print(note, markup=False, style="dim")
        out.print(summary_line(result, lang), markup=False)
        if comment_file is not None:
            out.print(f"wrote {comment_file}", markup=False)
    return int(ExitCode.FAILED if result.contradicted else ExitCode.OK)
