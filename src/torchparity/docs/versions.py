"""Versions and their folders (``2.7.1`` <-> ``pytorch_2-7-1``) and the links a version's pages use."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote

from ..errors import UsageError
from .model import CLASS, DOCS_SEGMENT, SUB_METHOD

FOLDER_PREFIX = "pytorch_"
_FOLDER = re.compile(r"^pytorch_(\d+)-(\d+)-(\d+)$")
_FILE_PREFIX = re.compile(r"^pytorch_(\d+)-(\d+)-(\d+)_")
_VERSION = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)$")
#: the default prefix of an upstream docs URL when a page has no link to learn it from
DEFAULT_DOCS_BASE = "https://pytorch.org/docs/"


def normalize_version(text: str) -> str:
    """``2.7.1``, ``v2.7.1`` or ``pytorch_2-7-1`` -> ``2.7.1``; anything else is a usage error."""
    raw = text.strip().rstrip("/")
    m = _VERSION.match(raw) or _FOLDER.match(Path(raw).name)
    if not m:
        raise UsageError(
            f"version {text!r} is not X.Y.Z; write it like 2.7.1 (folder pytorch_2-7-1)"
        )
    return ".".join(str(int(g)) for g in m.groups())


def folder_name(version: str) -> str:
    """``2.11.0`` -> ``pytorch_2-11-0``."""
    return FOLDER_PREFIX + normalize_version(version).replace(".", "-")


def version_of_folder(name: str) -> str:
    """``pytorch_2-11-0`` -> ``2.11.0``; "" when the name is not a version folder."""
    m = _FOLDER.match(name)
    return ".".join(str(int(g)) for g in m.groups()) if m else ""


def version_of_path(path: str | Path) -> str:
    """The version of a page from its folder, or from a ``pytorch_X-Y-Z_`` file-name prefix."""
    p = Path(path)
    found = version_of_folder(p.parent.name)
    if found:
        return found
    m = _FILE_PREFIX.match(p.name)
    return ".".join(str(int(g)) for g in m.groups()) if m else ""


def linked_folder_problem(folder: Path) -> str:
    """Why the version folder ``folder`` cannot be read as its version's pages ("" when it can).

    A symlink to a folder named for the same version (the pages kept elsewhere) is that version's
    pages; a symlink to anything else (another version's folder, the docs folder itself:
    ``pytorch_2-9-0 -> ../native_api``) would have another version's pages read as this one's.
    """
    version = version_of_folder(folder.name)
    if not version or not folder.is_symlink():
        return ""
    target = Path(os.path.realpath(folder))
    if version_of_folder(target.name) == version:
        return ""
    return (
        f"{folder.name} in {folder.parent} is a symlink to {target}, not a folder of {version}'s pages: "
        f"what is there would be read as {version}'s; replace the link with {version}'s own pages "
        f"(or link it to a folder named {folder.name})"
    )


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))


_VERSIONED_PART = re.compile(r"^(pytorch_)(\d+)-(\d+)-(\d+)(.*)$")


def path_order(path: str | Path) -> tuple[tuple[str, tuple[int, ...], str], ...]:
    """A sort key for paths that orders their version parts by version (``pytorch_2-7-1`` before
    ``pytorch_2-11-0``, folders and flattened ``pytorch_X-Y-Z_<module>.md`` names alike), the rest by name."""
    key = []
    for part in Path(path).parts:
        m = _VERSIONED_PART.match(part)
        if m:
            key.append((m.group(1), version_key(".".join(m.group(2, 3, 4))), m.group(5)))
        else:
            key.append((part, (), ""))
    return tuple(key)


def docs_short(version: str) -> str:
    """The docs URL segment of a version: ``2.11.0`` -> ``2.11``."""
    major, minor, _ = normalize_version(version).split(".")
    return f"{major}.{minor}"


def docs_segment(url: str) -> str:
    """The ``X.Y`` of ``/docs/X.Y/`` in a URL, "" when there is none."""
    m = DOCS_SEGMENT.search(url)
    return m.group(1) if m else ""


def discover(docs_dir: Path) -> list[str]:
    """Versions with a ``pytorch_X-Y-Z`` folder under ``docs_dir``, oldest first."""
    found = [version_of_folder(p.name) for p in docs_dir.iterdir() if p.is_dir()]
    return sorted((v for v in found if v), key=version_key)


def resolve_docs_dir(path: str | Path, root_hint: str = "") -> Path:
    """The folder holding the ``pytorch_X-Y-Z`` folders.

    ``path`` may be that folder, or a backend repository whose ``root_hint``
    (the config's ``[docs] root``, e.g. ``docs/zh/api/native_api``) holds it.
    """
    p = Path(path)
    if not p.is_dir():
        raise UsageError(f"docs folder not found: {p}; pass --docs with the native_api folder")
    if root_hint and not any(version_of_folder(c.name) for c in p.iterdir() if c.is_dir()):
        nested = p / root_hint
        if nested.is_dir():
            return nested
    return p


def link_version_problem(url: str, version: str) -> str:
    """Why ``url`` is not a link into ``version``'s docs ("" when it is, or the version is unknown)."""
    if not version:
        return ""
    want = docs_short(version)
    found = docs_segment(url)
    if not found:
        return f"link has no /docs/<version>/ segment (want /docs/{want}/)"
    if found != want:
        return f"link is for /docs/{found}/, want /docs/{want}/"
    return ""


#: a Markdown backslash escape (``\\_`` -> ``_``)
_MD_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")


def md_unescape(text: str) -> str:
    """``SummaryWriter.\\_\\_init\\_\\_`` -> ``SummaryWriter.__init__`` (Markdown backslash escapes removed)."""
    return _MD_ESCAPE.sub(r"\1", text) if "\\" in text else text


def _is_class_name(segment: str) -> bool:
    return segment[:1].isupper() and any(c.islower() for c in segment)


def _own_segments(parts: list[str], kind: str) -> int:
    """How many trailing segments are the API's own name: from its class on (``Tensor.col_indices``), else 1."""
    own = 1
    for k, seg in enumerate(parts[1:-1], 1):
        if _is_class_name(seg):
            own = len(parts) - k
            break
    if kind == SUB_METHOD and len(parts) >= 3:
        own = max(own, 2)
    return own


def names_api(named: str, api: str, kind: str = "") -> bool:
    """Whether a link's page or anchor name ``named`` stands for ``api``.

    The same name; a longer one that ends with it (``torch.torch.default_generator``,
    ``torch.autograd.profiler.profile.key_averages`` for ``profile.key_averages``); or
    the same package and own name under a module path that extends or shortens the
    API's (``torch.cuda.memory.empty_cache`` for ``torch.cuda.empty_cache``,
    ``torch.Tensor.col_indices`` for ``torch.sparse.Tensor.col_indices``).
    """
    named, api = md_unescape(named), md_unescape(api)
    if not named:
        return False
    if named == api or named.endswith("." + api):
        return True
    n, a = named.split("."), api.split(".")
    own = _own_segments(a, kind)
    if len(a) <= own or len(n) <= own or n[-own:] != a[-own:] or n[0] != a[0]:
        return False
    if len(a) - own == 1 and len(n) - own > 1:
        return False  # torch.X is its own spelling: torch.special.X is another API
    short, long = sorted((n[:-own], a[:-own]), key=len)
    return long[: len(short)] == short


def link_api_problem(url: str, api: str, kind: str) -> str:
    """Why ``url`` does not point at ``api`` ("" when its anchor or its page names it).

    Accepted: the API's own page (``generated/<api>.html``, for members too), the
    anchor form (``...#<api>``), either under the API's defining-module path
    (see ``names_api``), and a module or topic page whose anchor names the API
    (``torch.html#torch.is_tensor``), or, for a class without an anchor, whose
    page is named after it (``tensors.html`` for ``torch.Tensor``).
    """
    api = md_unescape(api)
    page, _, anchor = url.partition("#")
    page = unquote(page.split("?", 1)[0]).rstrip("/")
    anchor = md_unescape(unquote(anchor))
    stem = page.rsplit("/", 1)[-1]
    stem = stem[:-5] if stem.endswith(".html") else stem
    if anchor:
        return "" if names_api(anchor, api, kind) else f"link anchor #{anchor} does not name {api}"
    if names_api(stem, api, kind):
        return ""
    generated = "/generated/" in page + "/"
    parent = api.rsplit(".", 1)[0]
    if kind == SUB_METHOD and "." in api and names_api(stem, parent, CLASS):
        return (
            f"sub-method link names its class {parent}; use the anchor form ...#{api} "
            "or the member's own page"
        )
    if not generated:
        last = api.rsplit(".", 1)[-1].lower()
        if kind == CLASS and stem.lower() in (last, last + "s"):
            return ""  # a topic page named after the class (tensors.html for torch.Tensor)
        return f"link page {stem}.html is a topic page without an anchor naming {api}"
    return f"link page {stem}.html does not name {api}"


def link_problem(url: str | None, api: str, version: str, kind: str) -> str:
    """Why ``url`` is not the right docs link for ``api`` in ``version`` ("" when it is)."""
    if not url:
        return "no 原生文档 link"
    problems = [link_version_problem(url, version), link_api_problem(url, api, kind)]
    return "; ".join(p for p in problems if p)


def docs_base(urls: list[str]) -> str:
    """The URL prefix up to ``/docs/`` most links use (``https://pytorch.org/docs/``)."""
    counts: dict[str, int] = {}
    for url in urls:
        m = DOCS_SEGMENT.search(url)
        if m:
            base = url[: m.start()] + "/docs/"
            counts[base] = counts.get(base, 0) + 1
    return max(counts, key=lambda b: counts[b]) if counts else DEFAULT_DOCS_BASE


def with_version(url: str, version: str) -> str:
    """``url`` with its ``/docs/X.Y/`` segment set to ``version``'s."""
    want = f"/docs/{docs_short(version)}/"
    return DOCS_SEGMENT.sub(want, url, count=1) if DOCS_SEGMENT.search(url) else url
