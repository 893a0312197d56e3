"""Test trees read straight from git objects: ``ls-tree`` for paths, ``cat-file --batch`` for bytes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..gitblobs import stream_blobs
from ..gitrepo import git


@dataclass(frozen=True)
class TreeEntry:
    """One file of a commit's tree: its path, its blob id and its git mode."""

    path: str
    blob: str
    mode: str

    @property
    def is_python(self) -> bool:
        return self.path.endswith(".py")


def open_repo(path: str | Path, flag: str = "--repo") -> Path:
    """The repository at ``path``: a checkout's top folder, or a bare repository (objects suffice)."""
    key = str(Path(path).absolute())
    found = _OPENED.get(key)
    if found is None:
        found = _OPENED[key] = _open_repo(Path(path), flag)
    return found


#: repositories found in this process (a call asks for its repo once per ref and per grep)
_OPENED: dict[str, Path] = {}


def _open_repo(p: Path, flag: str) -> Path:
    if not p.exists():
        raise UsageError(f"repository folder not found: {p}; pass an existing folder to {flag}")
    res = git(p, "rev-parse", "--show-toplevel", check=False)
    if res.returncode == 0 and res.text.strip():
        return Path(res.text.strip())
    bare = git(p, "rev-parse", "--is-bare-repository", check=False)
    if bare.returncode == 0 and bare.text.strip() == "true":
        return p.absolute()
    raise UsageError(
        f"{p} is not a git repository; pass a git checkout (or a bare repository) to {flag}"
    )


def clean_roots(roots: Sequence[str]) -> tuple[str, ...]:
    """Test roots as git pathspecs: relative, forward slashes, no trailing slash."""
    out: list[str] = []
    for root in roots:
        r = str(root).replace("\\", "/").strip()
        while r.startswith("./"):
            r = r[2:]
        r = r.rstrip("/") or "."
        if r.startswith("/") or r == ".." or r.startswith("../"):
            raise UsageError(
                f"test root {root!r} is not inside the repository; give a folder relative to the repo root"
            )
        if r not in out:
            out.append(r)
    return tuple(out) or (".",)


def list_tree(repo: str | Path, commit: str, roots: Sequence[str]) -> list[TreeEntry]:
    """Every regular file under ``roots`` at ``commit`` (symlinks and submodules left out)."""
    res = git(repo, "ls-tree", "-r", "-z", "--full-tree", commit, "--", *clean_roots(roots))
    entries: list[TreeEntry] = []
    for item in res.stdout.split(b"\0"):
        if not item:
            continue
        meta, _, raw_path = item.partition(b"\t")
        mode, kind, blob = meta.decode("ascii").split(" ")
        if kind != "blob" or mode == "120000":
            continue
        entries.append(TreeEntry(raw_path.decode("utf-8", "surrogateescape"), blob, mode))
    return entries


def blob_sizes(repo: str | Path, blobs: Iterable[str]) -> dict[str, int]:
    """The size in bytes of each blob (a missing one left out), from one ``git cat-file --batch-check``:
    nothing of the blobs' contents is read."""
    wanted = list(dict.fromkeys(blobs))
    if not wanted:
        return {}
    res = git(
        repo,
        "cat-file",
        "--batch-check=%(objectname) %(objectsize)",
        input="\n".join(wanted).encode() + b"\n",
    )
    out: dict[str, int] = {}
    for line in res.stdout.decode("ascii", "replace").splitlines():
        name, _, size = line.partition(" ")
        if size.isdigit():
            out[name] = int(size)
    return out


def read_blobs(repo: str | Path, blobs: Iterable[str]) -> dict[str, bytes]:
    """The bytes of each blob (a missing one left out), read with one ``git cat-file --batch``."""
    return {
        b: data
        for b, data in stream_blobs(Path(repo), list(dict.fromkeys(blobs)))
        if data is not None
    }
