"""``git grep`` claims: the command re-run at the commit the text states, its match count compared."""

from __future__ import annotations

from collections.abc import Iterator

from ..records import GrepClaim, Verdict, contradicted, unverifiable, verified
from .facts import Facts

#: options that would leave the repository's objects (run a pager, read the work tree) or read files
_REFUSED = (
    "-O",
    "--open-files-in-pager",
    "--no-index",
    "--untracked",
    "--recurse-submodules",
    "-f",
    "--ext-grep",
)
_WITH_VALUE = {
    "-e",
    "-A",
    "-B",
    "-C",
    "-m",
    "--max-count",
    "--max-depth",
    "--threads",
    "--after-context",
    "--before-context",
    "--context",
}


def split_args(args: tuple[str, ...]) -> tuple[list[str], list[str], list[str]] | None:
    """(options and patterns, revisions, paths) of ``git grep`` words; None when an option is refused."""
    opts: list[str] = []
    revs: list[str] = []
    paths: list[str] = []
    has_pattern = False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            paths = list(args[i + 1 :])
            break
        if any(
            a == r
            or a.startswith(r + "=")
            or (r.startswith("-") and len(r) == 2 and a.startswith(r) and not a.startswith("--"))
            for r in _REFUSED
        ):
            return None
        if a in _WITH_VALUE and i + 1 < len(args):
            opts += [a, args[i + 1]]
            has_pattern = has_pattern or a == "-e"
            i += 2
            continue
        if a.startswith("-"):
            opts.append(a)
        elif not has_pattern:
            opts += ["-e", a]
            has_pattern = True
        else:
            revs.append(a)
        i += 1
    return opts, revs, paths


def _count(output: str, opts: list[str]) -> int:
    lines = [ln for ln in output.splitlines() if ln.strip()]
    if "-c" in opts or "--count" in opts:
        return sum(int(ln.rsplit(":", 1)[-1]) for ln in lines if ln.rsplit(":", 1)[-1].isdigit())
    return len(lines)


def check_grep(c: GrepClaim, f: Facts) -> Verdict:
    view = f.view
    if c.upstream:
        return unverifiable(
            c, "grep", "the text ran it in upstream PyTorch, not in this repository"
        )
    parts = split_args(c.args)
    if parts is None:
        return unverifiable(
            c,
            "grep",
            "the command uses an option review does not run (a pager, files, the work tree)",
        )
    opts, revs, paths = parts
    at_text = c.at or (revs[0] if revs else "")
    commits: list[tuple[str, str]] = []
    if at_text:
        commit = view.resolve(at_text.removeprefix("origin/")) or view.resolve(at_text)
        if commit is None:
            return unverifiable(
                c, "grep", f"the commit it ran at ({at_text}) is not in the repository"
            )
        commits.append((at_text, commit))
    else:
        commits.append(("the state before the change", view.base))
        if view.base != view.commit:
            commits.append(("the merge", view.commit))
    results = []
    for label, commit in commits:
        code, output = view.grep([*opts, commit, "--", *paths])
        if code > 1:
            return unverifiable(
                c,
                "grep",
                f"git grep fails at {commit[:12]}: {output.strip()[:120] or 'exit ' + str(code)}",
            )
        results.append((label, commit, _count(output, opts)))
    for label, commit, n in results:
        if n == c.count:
            return verified(c, "grep", f"{n} matches at {commit[:12]} ({label})")
    shown = "; ".join(f"{n} at {commit[:12]} ({label})" for label, commit, n in results)
    return contradicted(c, "grep", f"the text says {c.count}; re-run: {shown}")


def check_greps(f: Facts) -> Iterator[Verdict]:
    for c in f.claims.greps:
        yield check_grep(c, f)
