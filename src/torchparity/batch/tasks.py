"""TASKS: the APIs a batch verifies, from one of three forms.

* a text file: one API a line; ``#`` starts a comment; blank lines are skipped;
* a TOML file (``*.toml``) of ``[[task]]`` tables, each with ``api`` and the PR
  fields of its PRs (``task_issue``, ``result_issue``, ``source_branch``,
  ``title``, ``source_type``, ``refs``, ...), and an optional ``[defaults]``
  table with fields every task takes unless it says otherwise;
* the community's task issue text (as pasted from the issue): the API names of
  its API name section (``五、API名称`` followed by the names, up to the next section).

Bad input is one line naming the file, the line or task, and what to write.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..records.batch import BatchTask
from ..records.task import TaskRecord, check_fields

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

#: a dotted Python name (the form resolve accepts); backticks around it are dropped
API_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$")

#: the issue section that lists the task's APIs: "五、API名称", "## API 名称", "API名称：torch.x"
_API_SECTION = re.compile(
    r"^\s*(?:[一二三四五六七八九十]+[、.．]\s*|#+\s*|\d+[.、]\s*)?API\s*(?:名称|列表|name)\s*[:：]?\s*(.*)$",
    re.IGNORECASE,
)
#: the start of another section of the issue
_SECTION = re.compile(r"^\s*(?:[一二三四五六七八九十]+[、.．]|#+\s|\d+[、])")
_NAME_IN_TEXT = re.compile(r"`?([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)`?")

#: TOML task keys -> the task record's field (source_type is a list there)
_FIELDS = {
    "title": "title",
    "task_issue": "task_issue",
    "result_issue": "result_issue",
    "task_title": "task_title",
    "result_title": "result_title",
    "source_branch": "source_branch",
    "target_branch": "target_branch",
    "interface_change": "interface_change",
    "upstream_patch": "upstream_patch",
    "upstream_note": "upstream_note",
}
_TASK_KEYS = {"api", "refs", "source_type", *_FIELDS}


@dataclass(frozen=True)
class TaskList:
    tasks: tuple[BatchTask, ...]
    form: str  # text | toml | issue
    source: str


def read_tasks(path: Path) -> TaskList:
    """The tasks of ``path`` (its form chosen by suffix and content); ``UsageError`` for bad input."""
    if not path.is_file():
        raise UsageError(
            f"tasks file not found: {path}; pass a text file (one API a line), a TOML file "
            "of [[task]] tables, or the task issue's text"
        )
    try:
        text = path.read_text("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text; save the task list as UTF-8") from None
    if path.suffix == ".toml":
        tasks, form = parse_toml(text, str(path)), "toml"
    elif any(_API_SECTION.match(line) for line in text.splitlines()):
        tasks, form = parse_issue(text, str(path)), "issue"
    else:
        tasks, form = parse_text(text, str(path)), "text"
    if not tasks:
        raise UsageError(
            f"{path} names no API; write one API a line (e.g. torch.nn.functional.relu)"
        )
    _no_twice(tasks, str(path))
    return TaskList(tuple(tasks), form, str(path))


def _check_name(name: str, where: str) -> str:
    name = name.strip().strip("`")
    if not API_NAME.match(name):
        raise UsageError(
            f"{where}: {name!r} is not an API name; write a dotted Python name, "
            "e.g. torch.nn.functional.relu"
        )
    return name


def _no_twice(tasks: list[BatchTask], where: str) -> None:
    seen: dict[str, BatchTask] = {}
    for t in tasks:
        if t.api in seen:
            raise UsageError(
                f"{where}: {t.api} is given twice ({seen[t.api].source} and {t.source}); keep one"
            )
        seen[t.api] = t


def parse_text(text: str, where: str) -> list[BatchTask]:
    tasks: list[BatchTask] = []
    for n, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        api = _check_name(body, f"{where}:{n}")
        tasks.append(BatchTask(len(tasks), api, TaskRecord(api=None), source=f"{where}:{n}"))
    return tasks


def parse_issue(text: str, where: str) -> list[BatchTask]:
    """The names in the issue's API name section (the heading's own line, then up to the next section)."""
    lines = text.splitlines()
    tasks: list[BatchTask] = []
    for n, line in enumerate(lines):
        m = _API_SECTION.match(line)
        if not m:
            continue
        body = [(n + 1, m.group(1))]
        for k in range(n + 1, len(lines)):
            if _SECTION.match(lines[k]) or _API_SECTION.match(lines[k]):
                break
            body.append((k + 1, lines[k]))
        for lineno, chunk in body:
            for name in _NAME_IN_TEXT.findall(chunk):
                if name not in {t.api for t in tasks} and not _looks_like_url(chunk, name):
                    tasks.append(
                        BatchTask(
                            len(tasks),
                            name,
                            TaskRecord(api=None),
                            source=f"{where}:{lineno} (API名称)",
                        )
                    )
    if not tasks:
        raise UsageError(
            f"{where}: its API name section (API名称) lists no API; put the names under it, one a line"
        )
    return tasks


def _looks_like_url(chunk: str, name: str) -> bool:
    """A dotted word inside a link or an address (www.hiascend.com) is not an API."""
    return (
        bool(re.search(r"(https?://|www\.)\S*" + re.escape(name), chunk))
        or "@" in chunk.split(name)[0][-1:]
    )


def _str(value: Any, key: str, where: str) -> str:
    if not isinstance(value, str):
        raise UsageError(f'{where}: {key} must be a string, got {value!r}; e.g. {key} = "..."')
    return value


def _fields(
    table: dict[str, Any], where: str, base: TaskRecord
) -> tuple[TaskRecord, tuple[str, ...]]:
    unknown = sorted(set(table) - _TASK_KEYS)
    if unknown:
        raise UsageError(
            f"{where}: unknown key(s) {', '.join(unknown)}; a task takes {', '.join(sorted(_TASK_KEYS))}"
        )
    changes: dict[str, Any] = {
        f: _str(table[k], k, where) for k, f in _FIELDS.items() if k in table
    }
    if "source_type" in table:
        st = table["source_type"]
        types = [st] if isinstance(st, str) else st
        if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
            raise UsageError(
                f'{where}: source_type must be a string or a list of strings, e.g. source_type = ["requirement"]'
            )
        changes["source_types"] = tuple(types)
    refs: tuple[str, ...] = ()
    if "refs" in table:
        r = table["refs"]
        if not isinstance(r, list) or not all(isinstance(x, str) and x for x in r):
            raise UsageError(
                f'{where}: refs must be a list of branch names, e.g. refs = ["master", "v2.7.1"]'
            )
        refs = tuple(r)
    return check_fields(base.replace(**changes), f"{where}: "), refs


def parse_toml(text: str, where: str) -> list[BatchTask]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{where}: not valid TOML ({exc}); fix the file") from None
    unknown = sorted(set(data) - {"task", "defaults"})
    if unknown:
        raise UsageError(
            f"{where}: unknown table(s) {', '.join(unknown)}; write [[task]] tables (and [defaults])"
        )
    defaults = data.get("defaults") or {}
    if not isinstance(defaults, dict):
        raise UsageError(f"{where}: [defaults] must be a table")
    if "api" in defaults:
        raise UsageError(
            f'{where}: [defaults] cannot name an api; put api = "..." in each [[task]]'
        )
    base, base_refs = _fields(defaults, f"{where} [defaults]", TaskRecord(api=None))
    items = data.get("task") or []
    if not isinstance(items, list):
        raise UsageError(f"{where}: task must be [[task]] tables, one per API")
    tasks: list[BatchTask] = []
    for i, item in enumerate(items, 1):
        at = f"{where} [[task]] #{i}"
        if not isinstance(item, dict) or "api" not in item:
            raise UsageError(f'{at} has no api; write api = "torch...."')
        api = _check_name(_str(item["api"], "api", at), at)
        fields, refs = _fields({k: v for k, v in item.items() if k != "api"}, f"{at} ({api})", base)
        tasks.append(BatchTask(len(tasks), api, fields, refs or base_refs, source=at))
    return tasks


__all__ = ["API_NAME", "TaskList", "parse_issue", "parse_text", "parse_toml", "read_tasks"]
