"""A native_api folder: its version folders and their parsed pages, read once and looked up by API."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import UsageError
from .model import Entry, Page, Products
from .parse import page_files, read_page
from .versions import discover, folder_name, normalize_version, resolve_docs_dir, version_key


def module_of_page(path: str | Path) -> str:
    """The module a page is named after: ``torch-autograd.md`` -> ``torch.autograd``."""
    stem = Path(path).stem
    if stem.endswith(".sample"):
        stem = stem[: -len(".sample")]
    if stem.startswith("pytorch_") and "_" in stem[8:]:
        stem = stem[8:].split("_", 1)[1]  # pytorch_2-7-1_torch -> torch (flattened copies)
    return stem.replace("-", ".").replace("_", ".")


def module_score(api: str, module: str) -> int:
    """How many leading components of ``api`` the module name covers (0: none)."""
    a, m = api.split("."), module.split(".")
    if len(m) > len(a) or a[: len(m)] != m:
        return 0
    return len(m)


#: the field that gives the backend's own spelling of an entry (``torch_npu.npu.Event`` on ``torch.cuda.Event``)
BACKEND_NAME_LABELS = ("NPU形式名称",)


def stated_backend_name(entry: Entry) -> str | None:
    """The backend's spelling an entry states (``**NPU 形式名称**：torch_npu.npu.Event``), if any."""
    for f in entry.fields:
        name = f.rest.strip().strip("`").strip()
        if f.label.replace(" ", "") in BACKEND_NAME_LABELS and name and " " not in name:
            return name
    return None


def backend_names(pages: Iterable[Page]) -> dict[str, str]:
    """Backend spelling -> the entry's API, for entries that state one (and their sub-methods)."""
    out: dict[str, str] = {}
    for page in pages:
        for e in page.entries:
            name = stated_backend_name(e)
            if name is None:
                continue
            out.setdefault(name, e.api)
            for child in e.children:
                out.setdefault(f"{name}.{child.api.rsplit('.', 1)[-1]}", child.api)
    return out


class DocsTree:
    """The pages of every version under one native_api folder, parsed on first use."""

    def __init__(
        self, docs_dir: str | Path, products: Iterable[Any] = (), root_hint: str = ""
    ) -> None:
        self.root = resolve_docs_dir(docs_dir, root_hint)
        self.products = products if isinstance(products, Products) else Products(products)
        self._pages: dict[str, list[Page]] = {}
        self._backend_names: dict[str, dict[str, str]] = {}

    def versions(self) -> list[str]:
        return discover(self.root)

    def pick_versions(self, versions: Iterable[str] | None) -> list[str]:
        """``versions`` normalised (``v2.7.1`` -> ``2.7.1``), or every version found.

        A version asked for without its ``pytorch_X-Y-Z`` folder is bad input (one line
        naming the versions there are).
        """
        if versions:
            picked = sorted(dict.fromkeys(normalize_version(v) for v in versions), key=version_key)
            absent = [v for v in picked if not self.has_folder(v)]
            if absent:
                there = ", ".join(self.versions()) or "none"
                folders = ", ".join(folder_name(v) for v in absent)
                raise UsageError(
                    f"no folder {folders} in {self.root}; versions found: {there} "
                    "(pass one of them to --version, or create the version folder first)"
                )
            return picked
        found = self.versions()
        if not found:
            raise UsageError(
                f"no pytorch_<X-Y-Z> folder in {self.root}; pass --docs with the native_api folder "
                "(docs/zh/api/native_api of the backend repository)"
            )
        return found

    def folder(self, version: str) -> Path:
        return self.root / folder_name(version)

    def has_folder(self, version: str) -> bool:
        return self.folder(version).is_dir()

    def pages(self, version: str) -> list[Page]:
        v = normalize_version(version)
        if v not in self._pages:
            folder = self.folder(v)
            self._pages[v] = (
                [read_page(p, self.products, v) for p in page_files(folder)]
                if folder.is_dir()
                else []
            )
        return self._pages[v]

    def forget(self, version: str) -> None:
        """Drop cached pages (after a page was written)."""
        self._pages.pop(normalize_version(version), None)
        self._backend_names.pop(normalize_version(version), None)

    def rel(self, page: Page | str | Path) -> str:
        p = Path(page.path if isinstance(page, Page) else page)
        try:  # as the tree names it first: a version folder linked elsewhere keeps its own name
            return p.relative_to(self.root).as_posix()
        except ValueError:
            pass
        try:
            return p.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return str(p)

    def find(self, api: str, version: str) -> tuple[Page, Entry] | None:
        """The entry for ``api`` in ``version``; the page named after its module wins a tie.

        A backend spelling that an entry states (``torch_npu.npu.Event``) finds that entry.
        """
        hits = [(page, e) for page in self.pages(version) for e in page.entries_named(api)]
        if not hits:
            v = normalize_version(version)
            if v not in self._backend_names:
                self._backend_names[v] = backend_names(self.pages(v))
            named = self._backend_names[v].get(api)
            return self.find(named, version) if named and named != api else None
        hits.sort(
            key=lambda h: (-module_score(api, module_of_page(h[0].path)), h[0].path, h[1].start)
        )
        return hits[0]

    def backend_name(self, api: str, version: str) -> str | None:
        """The backend's spelling of ``api`` in ``version``: its entry's, or its parent entry's plus the member."""
        found = self.find(api, version)
        if found is None:
            return None
        page, entry = found
        name = stated_backend_name(entry)
        if name is None and entry.parent:
            parent = self.find(entry.parent, version)
            owner = stated_backend_name(parent[1]) if parent is not None else None
            name = f"{owner}.{entry.api.rsplit('.', 1)[-1]}" if owner else None
        return name

    def module_page(self, api: str, version: str) -> Page | None:
        """The page named after the longest module prefix of ``api`` (``torch.md`` for ``torch.x``)."""
        best: tuple[int, str] = (0, "")
        chosen = None
        for page in self.pages(version):
            score = module_score(api, module_of_page(page.path))
            if score > best[0] or (score == best[0] and score and page.path < best[1]):
                best, chosen = (score, page.path), page
        return chosen


def find_docs_dir(docs: Path | None, bases: Iterable[Path], root: str) -> Path | None:
    """``docs`` when given, else the first ``base/root`` that is a folder (None when none is)."""
    if docs is not None:
        return docs
    return next((base / root for base in bases if (base / root).is_dir()), None)
