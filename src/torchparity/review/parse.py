"""A PR text into typed claim records (``Claims``): one pass per kind over one ``Document``."""

from __future__ import annotations

from collections.abc import Iterable

from .context import Context, paths_in
from .document import Document
from .extract_grep import extract_greps
from .extract_hashes import extract_hashes
from .extract_outcomes import extract_outcomes
from .extract_prose import extract_docs, extract_probes, extract_scope, extract_versions, main_api
from .extract_runs import command_file, command_text, extract_runs, is_command
from .records import (
    Claims,
    CommitClaim,
    DocsClaim,
    DocsStatusClaim,
    EvidenceClaim,
    Sha256Claim,
    SubmoduleClaim,
)


def changed_files_named(doc: Document) -> tuple[str, ...]:
    """The Python files the change section names (``修改文件：test/npu/test_x.py``)."""
    out: list[str] = []
    for ln in doc:
        if ln.section == "change" and not ln.bot:
            out += [p for p in paths_in(ln.text) if p.endswith(".py")]
    return tuple(dict.fromkeys(out))


def command_files(doc: Document) -> tuple[str, ...]:
    """The test files the text's commands run, in order.

    A command's ``\\`` continuation lines are joined up to the next line that is a command itself (whose
    file that line gives), so that each line is read once, however many lines continue one another.
    """
    lines = doc.lines
    commands = [not ln.is_heading and not ln.bot and is_command(ln.stripped) for ln in lines]
    out = []
    for i, ln in enumerate(lines):
        if not commands[i]:
            continue
        last = i
        while (
            last + 1 < len(lines) and not commands[last + 1] and lines[last].stripped.endswith("\\")
        ):
            last += 1
        found = command_file(command_text(doc, ln, last=lines[last].no))
        if found:
            out.append(found)
    return tuple(dict.fromkeys(out))


def parse_text(text: str, products: Iterable[tuple[str, tuple[str, ...]]] = ()) -> Claims:
    """Every claim ``text`` makes that a check can look at.

    ``products`` are (code, spellings) of the products a docs page lists, for
    the support-status claims (``Atlas A2 训练系列产品：支持``).
    """
    doc = Document(text)
    ctx = Context(doc)
    hashes = list(extract_hashes(doc, ctx))
    api = main_api(doc)
    docs = list(extract_docs(doc, api, products))
    return Claims(
        commits=tuple(h for h in hashes if isinstance(h, CommitClaim)),
        submodules=tuple(h for h in hashes if isinstance(h, SubmoduleClaim)),
        sha256=tuple(h for h in hashes if isinstance(h, Sha256Claim)),
        evidence=tuple(h for h in hashes if isinstance(h, EvidenceClaim)),
        runs=tuple(extract_runs(doc, ctx)),
        greps=tuple(extract_greps(doc)),
        docs=tuple(d for d in docs if isinstance(d, DocsClaim)),
        docs_status=tuple(d for d in docs if isinstance(d, DocsStatusClaim)),
        scope=tuple(extract_scope(doc)),
        versions=tuple(extract_versions(doc)),
        probes=tuple(extract_probes(doc)),
        outcomes=tuple(extract_outcomes(doc)),
        api=api,
        files=changed_files_named(doc),
        command_files=command_files(doc),
        long_lines=tuple(doc.long_lines),
    )
