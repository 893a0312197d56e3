"""The config's ``[upstream]`` table, typed and checked: which files are vendored, which disabled list applies.

::

    [upstream]
    vendored = ["test/test_*.py", "test/autograd/*.py"]  # the backend's copies of PyTorch's test files
    exclude = ["*npu*"]                                  # ... less the backend's own files among them
    max_tests = 200                                      # per target; the rest is listed, not run

    [upstream.disabled]                                  # the backend's disabled list
    file = "test/unsupported_test_cases/.pytorch-disabled-tests.json"
    versioned = "test/unsupported_test_cases/.pytorch-disabled-tests-{major}.{minor}.json"
    categories = "test/unsupported_test_cases/disabled_tests_type.json"
    category_names = "test/unsupported_test_cases/error_type.json"
    variable = "DISABLED_TESTS_FILE"                     # what the runs set to the list's path
    class_aliases = [["PRIVATEUSE1", "NPU"]]
    platform_rule = "all"                                # all | any (PyTorch's)

    [upstream.disabled.platforms]                        # tag -> regex over "<device name>;<os platform>"
    "910A" = "^Ascend910[AP]"

A generic backend names its list with ``disabled_tests_file = "PATH"`` (PyTorch's
format and platform tags).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from typing import Any

from ..config import CONFIG_FILENAME, Config
from ..errors import UsageError

#: PyTorch's own platform tags (``check_if_enable``), as regexes over "<device name>;<os platform>":
#: the conditions torchparity's runs never set (ROCm, sanitizers, dynamo, inductor, slow) never hold
PYTORCH_PLATFORMS: dict[str, str] = {
    "linux": ";Linux",
    "mac": ";(macOS|Darwin)",
    "macos": ";(macOS|Darwin)",
    "win": ";Windows",
    "windows": ";Windows",
    "rocm": "(?!)",
    "xpu": "(?!)",
    "asan": "(?!)",
    "dynamo": "(?!)",
    "dynamo_wrapped": "(?!)",
    "inductor": "(?!)",
    "slow": "(?!)",
}

DEFAULT_MAX_TESTS = 200
RULES = ("all", "any")


@dataclass(frozen=True)
class DisabledSettings:
    """Where the backend keeps its disabled list and how it reads it."""

    file: str = ""
    #: a per-version variant, tried first (``{major}``, ``{minor}`` from the environment's torch)
    versioned: str = ""
    categories: str = ""
    category_names: str = ""
    variable: str = "DISABLED_TESTS_FILE"
    class_aliases: tuple[tuple[str, str], ...] = ()
    #: all: an entry applies where every tag it names (and the config knows) holds; any: where one does
    platform_rule: str = "any"
    platforms: dict[str, str] = field(default_factory=lambda: dict(PYTORCH_PLATFORMS))

    @property
    def configured(self) -> bool:
        return bool(self.file)

    def list_for(self, torch_version: str) -> list[str]:
        """The list's paths to try, in order, for an environment with ``torch_version``."""
        m = re.match(r"(\d+)\.(\d+)", torch_version)
        out = []
        if self.versioned and m:
            out.append(self.versioned.format(major=m.group(1), minor=m.group(2)))
        if self.file:
            out.append(self.file)
        return out


@dataclass(frozen=True)
class UpstreamSettings:
    vendored: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_tests: int = DEFAULT_MAX_TESTS
    disabled: DisabledSettings = field(default_factory=DisabledSettings)

    def is_vendored(self, path: str) -> bool:
        """A file of the backend's tree that is its copy of a PyTorch test file."""
        if not any(fnmatch.fnmatchcase(path, g) for g in self.vendored):
            return False
        return not any(fnmatch.fnmatchcase(path, g) for g in self.exclude)


_KEYS = {"vendored", "exclude", "max_tests", "disabled", "disabled_tests_file"}
_DISABLED_KEYS = {
    "file",
    "versioned",
    "categories",
    "category_names",
    "variable",
    "class_aliases",
    "platform_rule",
    "platforms",
}


def _strings(table: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(
            f'{where}: {key} must be a list of strings, e.g. {key} = ["test/test_*.py"]'
        )
    return tuple(value)


def _string(table: dict[str, Any], key: str, where: str, default: str = "") -> str:
    value = table.get(key, default)
    if not isinstance(value, str):
        raise UsageError(f'{where}: {key} must be a string, e.g. {key} = "..."')
    return value


def _disabled(table: dict[str, Any], shorthand: str, where: str) -> DisabledSettings:
    unknown = sorted(set(table) - _DISABLED_KEYS)
    if unknown:
        raise UsageError(
            f"{where}.disabled: unknown key(s) {', '.join(unknown)}; "
            f"known keys: {', '.join(sorted(_DISABLED_KEYS))}"
        )
    sub = f"{where}.disabled"
    aliases = table.get("class_aliases", [])
    if not isinstance(aliases, list) or not all(
        isinstance(a, list) and len(a) == 2 and all(isinstance(x, str) and x for x in a)
        for a in aliases
    ):
        raise UsageError(
            f'{sub}: class_aliases must be pairs of names, e.g. class_aliases = [["PRIVATEUSE1", "NPU"]]'
        )
    rule = _string(table, "platform_rule", sub, "any")
    if rule not in RULES:
        raise UsageError(
            f"{sub}: platform_rule {rule!r}: use all (every tag an entry names must hold) or any"
        )
    platforms = table.get("platforms")
    if platforms is None:
        tags = dict(PYTORCH_PLATFORMS)
    elif isinstance(platforms, dict) and all(isinstance(v, str) for v in platforms.values()):
        tags = {str(k): v for k, v in platforms.items()}
    else:
        raise UsageError(
            f'{sub}.platforms: map each tag to a regex, e.g. "910A" = "^Ascend910[AP]"'
        )
    for tag, regex in tags.items():
        try:
            re.compile(regex)
        except re.error as exc:
            raise UsageError(
                f"{sub}.platforms: the regex of {tag!r} does not compile ({exc}); fix it"
            ) from None
    return DisabledSettings(
        file=_string(table, "file", sub) or shorthand,
        versioned=_string(table, "versioned", sub),
        categories=_string(table, "categories", sub),
        category_names=_string(table, "category_names", sub),
        variable=_string(table, "variable", sub, "DISABLED_TESTS_FILE"),
        class_aliases=tuple((a[0], a[1]) for a in aliases),
        platform_rule=rule,
        platforms=tags,
    )


def upstream_settings(cfg: Config) -> UpstreamSettings:
    """The ``[upstream]`` table of ``cfg`` (defaults where a key is absent); bad values are exit 2."""
    table = dict(cfg.upstream)
    where = f"{cfg.source}: [upstream]"
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise UsageError(
            f"{where}: unknown key(s) {', '.join(unknown)}; known keys: {', '.join(sorted(_KEYS))} "
            f"(see docs/upstream.md, or fix {CONFIG_FILENAME})"
        )
    max_tests = table.get("max_tests", DEFAULT_MAX_TESTS)
    if not isinstance(max_tests, int) or isinstance(max_tests, bool) or max_tests < 1:
        raise UsageError(
            f"{where}: max_tests must be a positive whole number, e.g. max_tests = 200"
        )
    disabled = table.get("disabled", {})
    if not isinstance(disabled, dict):
        raise UsageError(f"{where}: disabled must be a table ([upstream.disabled])")
    return UpstreamSettings(
        vendored=_strings(table, "vendored", where),
        exclude=_strings(table, "exclude", where),
        max_tests=max_tests,
        disabled=_disabled(disabled, _string(table, "disabled_tests_file", where), where),
    )


__all__ = ["PYTORCH_PLATFORMS", "DisabledSettings", "UpstreamSettings", "upstream_settings"]
