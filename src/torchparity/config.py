"""``torchparity.toml`` and the built-in presets, read into one typed ``Config``.

Lookup order: ``--config FILE`` if given, else ``torchparity.toml`` at the
backend repo root (``--repo``), else in the current folder, else the embedded
default. A file may start from a preset (``preset = "torch_npu"``); its own
keys then override the preset's, table by table.

Report templates are code that runs on this machine: ``[report] templates`` of
the backend repository's own config (found at ``--repo``, not given with
``--config``) is ignored, with a note, unless the user allows it
(``--allow-repo-templates``); either way templates render in a sandbox.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from . import __version__
from .emulated import emulation
from .errors import UsageError
from .fsutil import read_text_file
from .records.task import Product as TaskProduct
from .records.task import TaskRecord, check_fields

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

CONFIG_FILENAME = "torchparity.toml"
PRESETS = ("default", "torch_npu", "cuda", "xpu", "mps", "cpu")


@dataclass(frozen=True)
class RayNeeds:
    """Where an environment's jobs may run on a Ray cluster: the resources a job holds there
    (``NPU = 1``) and the node labels it needs (``product = "A2"``)."""

    resources: tuple[tuple[str, float], ...] = ()
    labels: tuple[tuple[str, str], ...] = ()

    def describe(self) -> str:
        bits = [f"{k}={v:g}" for k, v in self.resources] + [f"{k}={v}" for k, v in self.labels]
        return ", ".join(bits) or "any node"


@dataclass(frozen=True)
class EnvConfig:
    """A named environment under test: an interpreter with torch (and the backend)."""

    name: str
    python: str
    #: device type for this environment; empty means the config's device
    device: str = ""
    #: hardware name for reports, e.g. "Atlas A2"
    hardware: str = ""
    #: an emulated backend this environment runs with ("npu": torchparity's NPU emulated on CPU)
    emulated: str = ""
    #: ``ray = { resources = { NPU = 1 }, labels = { product = "A2" } }``: with a Ray address
    #: (``--ray`` or ``[ray] address``) this environment's jobs run on a node that matches
    ray: RayNeeds | None = None
    #: ``refs = ["v2.7.1"]``: the refs this environment runs (() : every ref its torch release fits)
    refs: tuple[str, ...] = ()


#: the native API support pages' folder in a backend repo, when the config names none
DEFAULT_DOCS_ROOT = "docs/zh/api/native_api"


@dataclass(frozen=True)
class Product:
    code: str
    name: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Config:
    preset: str = "default"
    source: str = "<embedded default>"
    backend_module: str = ""
    device: str = "auto"
    test_roots: tuple[str, ...] = ("test",)
    active_branches: tuple[str, ...] = ()
    maintenance_branches: tuple[str, ...] = ()
    #: why maintenance branches take no new tests, in English and in Chinese (each text shows its own)
    maintenance_reason: str = ""
    maintenance_reason_zh: str = ""
    envs: dict[str, EnvConfig] = field(default_factory=dict)
    #: free-form tables for the parts that own them (scaffold, docs, report)
    scaffold: dict[str, Any] = field(default_factory=dict)
    docs: dict[str, Any] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)
    #: the backend's vendored upstream test files and its disabled lists (``upstream.settings``)
    upstream: dict[str, Any] = field(default_factory=dict)
    #: the backend's spellings of PyTorch names, for coverage (``torch.npu`` is ``torch_npu.npu``)
    backend_aliases: dict[str, str] = field(default_factory=dict)
    #: ``[ray]``: ``address`` of a cluster, ``ship`` (paths of a ref sent with each job, beside the test roots)
    ray: dict[str, Any] = field(default_factory=dict)
    #: ``[run]``: ``max_output`` (bytes of each step's output kept, its head and tail; 0: all)
    run: dict[str, Any] = field(default_factory=dict)
    #: ``[torch_release]``: which torch release each ref targets: ``file`` (a file of the ref listing
    #: them, one a line: torch_npu's version.txt) and/or ``refs`` (ref -> release or list of them)
    torch_release: dict[str, Any] = field(default_factory=dict)
    #: how this config was chosen, when the user did not choose it (a preset detected in --repo, or
    #: the generic defaults): one line the CLI prints once
    notice: str = ""

    @property
    def products(self) -> tuple[Product, ...]:
        out = []
        for p in self.docs.get("products", []):
            out.append(Product(str(p["code"]), str(p["name"]), tuple(p.get("aliases", ()))))
        return tuple(out)

    @property
    def docs_root(self) -> str:
        """Where the support pages live in the backend repo."""
        return str(self.docs.get("root") or DEFAULT_DOCS_ROOT)

    @property
    def docs_products(self) -> tuple[Product, ...]:
        """The products the support pages list: the config's, else the torch_npu preset's."""
        return self.products or load_preset("torch_npu").products

    def task_record(
        self, api: str | None, given: TaskRecord | None = None, *, repo: bool, lang: str = "zh"
    ) -> TaskRecord:
        """What a run is asked to do, with this config's facts: the fields ``given`` (flags), else the
        config's ``[report]`` defaults; branches, products and the backend as configured now."""
        g = given or TaskRecord(api=None)
        r = self.report

        def pick(name: str) -> str | None:
            value = getattr(g, name)
            if value not in (None, ""):
                return str(value)
            value = r.get(name)
            return str(value) if value not in (None, "") else None

        default_types = r.get("source_type") or ()
        types = g.source_types or (
            (default_types,) if isinstance(default_types, str) else tuple(default_types)
        )
        return check_fields(
            TaskRecord(
                api=api or g.api,
                title=g.title,
                source_types=tuple(types),
                task_issue=pick("task_issue"),
                result_issue=pick("result_issue"),
                task_title=pick("task_title"),
                result_title=pick("result_title"),
                source_branch=g.source_branch,
                target_branch=g.target_branch,
                interface_change=g.interface_change,
                upstream_patch=g.upstream_patch,
                upstream_note=g.upstream_note,
                preset=self.preset,
                backend_module=self.backend_module,
                active_branches=self.active_branches,
                maintenance_branches=self.maintenance_branches,
                maintenance_reason=self.maintenance_reason or None,
                maintenance_reason_zh=self.maintenance_reason_zh or None,
                products=tuple(TaskProduct(p.code, p.name) for p in self.docs_products),
                repo=repo,
                lang=lang,
                docs_pr=g.docs_pr,
                torchparity_version=__version__,
            ),
            f"{self.source} [report] or the task's ",
        )

    def is_maintenance(self, ref: str) -> bool:
        short = ref.removeprefix("origin/").removeprefix("refs/heads/")
        return short in self.maintenance_branches

    def env(self, name: str) -> EnvConfig:
        try:
            return self.envs[name]
        except KeyError:
            known = ", ".join(sorted(self.envs)) or "none"
            raise UsageError(
                f"unknown environment {name!r} in {self.source} (known: {known}); "
                f'add [envs.{name}] python = "..." to {CONFIG_FILENAME}'
            ) from None


def _read_toml(text: str, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{where}: not valid TOML ({exc}); fix the file or pass --config") from exc


def _preset_data(name: str) -> dict[str, Any]:
    if name not in PRESETS:
        raise UsageError(f"unknown preset {name!r}; known presets: {', '.join(PRESETS)}")
    text = resources.files("torchparity.presets").joinpath(f"{name}.toml").read_text("utf-8")
    return _read_toml(text, f"preset {name}")


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


_TOP_KEYS = {
    "preset",
    "backend_module",
    "device",
    "test_roots",
    "active_branches",
    "maintenance_branches",
    "maintenance_reason",
    "maintenance_reason_zh",
    "envs",
    "scaffold",
    "docs",
    "report",
    "backend_aliases",
    "upstream",
    "ray",
    "run",
    "torch_release",
}


_ENV_KEYS = {"python", "device", "hardware", "emulated", "ray", "refs"}


def _string(data: dict[str, Any], key: str, source: str, default: str = "") -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise UsageError(f'{source}: {key} must be a string, got {value!r}; e.g. {key} = "..."')
    return value


def _strings(
    data: dict[str, Any], key: str, source: str, default: tuple[str, ...] = ()
) -> tuple[str, ...]:
    value = data.get(key, default)
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise UsageError(
            f'{source}: {key} must be a list of strings, got {value!r}; e.g. {key} = ["..."]'
        )
    return tuple(value)


def _table(data: dict[str, Any], key: str, source: str) -> dict[str, Any]:
    value = data.get(key) or {}
    if not isinstance(value, dict):
        raise UsageError(f"{source}: [{key}] must be a table, got {value!r}")
    return dict(value)


def _aliases(data: dict[str, Any], source: str) -> dict[str, str]:
    table = _table(data, "backend_aliases", source)
    bad = [k for k, v in table.items() if not isinstance(v, str) or not v]
    if bad:
        raise UsageError(
            f"{source}: [backend_aliases] {bad[0]} must name a module or API, e.g. "
            '"torch.npu" = "torch_npu.npu"'
        )
    return table


def _ray_needs(env: dict[str, Any], where: str) -> RayNeeds | None:
    value = env.get("ray")
    if value is None:
        return None
    example = 'ray = { resources = { NPU = 1 }, labels = { product = "A2" } }'
    if not isinstance(value, dict) or set(value) - {"resources", "labels"}:
        raise UsageError(f"{where}: ray must be a table of resources and labels, e.g. {example}")
    resources = value.get("resources") or {}
    labels = value.get("labels") or {}
    if not isinstance(resources, dict) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) and v > 0 for v in resources.values()
    ):
        raise UsageError(
            f"{where}: ray.resources must map names to positive numbers, e.g. {example}"
        )
    if not isinstance(labels, dict) or not all(isinstance(v, str) and v for v in labels.values()):
        raise UsageError(f"{where}: ray.labels must map names to strings, e.g. {example}")
    return RayNeeds(
        tuple((str(k), float(v)) for k, v in sorted(resources.items())),
        tuple((str(k), str(v)) for k, v in sorted(labels.items())),
    )


def _ray(data: dict[str, Any], source: str) -> dict[str, Any]:
    table = _table(data, "ray", source)
    unknown = sorted(set(table) - {"address", "ship"})
    if unknown:
        raise UsageError(
            f"{source}: [ray] unknown key(s) {', '.join(unknown)}; it takes address and ship"
        )
    if "address" in table:
        _string(table, "address", f"{source}: [ray]")
    if "ship" in table:
        _strings(table, "ship", f"{source}: [ray]")
    return table


def _run(data: dict[str, Any], source: str) -> dict[str, Any]:
    run = _table(data, "run", source)
    unknown = sorted(set(run) - {"max_output"})
    if unknown:
        raise UsageError(
            f"{source}: [run] has unknown key(s) {', '.join(unknown)}; known keys: max_output"
        )
    value = run.get("max_output", 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UsageError(
            f"{source}: [run] max_output = {value!r}: give the bytes of each step's output kept "
            "(its head and tail), 0 to keep everything, e.g. max_output = 16777216"
        )
    return run


def _torch_release(data: dict[str, Any], source: str) -> dict[str, Any]:
    table = _table(data, "torch_release", source)
    unknown = sorted(set(table) - {"file", "refs"})
    if unknown:
        raise UsageError(
            f"{source}: [torch_release] has unknown key(s) {', '.join(unknown)}; it takes file and refs"
        )
    _string(table, "file", f"{source}: [torch_release]")
    refs = table.get("refs", {})
    if not isinstance(refs, dict) or not all(
        isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v))
        for v in refs.values()
    ):
        raise UsageError(
            f'{source}: [torch_release.refs] maps a ref to a torch release, e.g. "v2.7.1" = "2.7.1"'
        )
    return table


def _build(data: dict[str, Any], preset: str, source: str) -> Config:
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise UsageError(
            f"{source}: unknown key(s) {', '.join(unknown)}; known keys: {', '.join(sorted(_TOP_KEYS))}"
        )
    envs: dict[str, EnvConfig] = {}
    for name, env in _table(data, "envs", source).items():
        where = f"{source}: [envs.{name}]"
        if not isinstance(env, dict) or not isinstance(env.get("python"), str):
            raise UsageError(f'{where} needs python = "/path/to/python"')
        unknown_keys = sorted(set(env) - _ENV_KEYS)
        if unknown_keys:
            raise UsageError(
                f"{where}: unknown key(s) {', '.join(unknown_keys)}; known keys: "
                f"{', '.join(sorted(_ENV_KEYS))}"
            )
        emulated = _string(env, "emulated", where)
        if emulated:
            emulation(emulated, f"{where} emulated")  # an unknown one is refused here
        envs[name] = EnvConfig(
            name=name,
            python=env["python"],
            device=_string(env, "device", where),
            hardware=_string(env, "hardware", where),
            emulated=emulated,
            ray=_ray_needs(env, where),
            refs=_strings(env, "refs", where),
        )
    docs = _table(data, "docs", source)
    for i, product in enumerate(docs.get("products") or []):
        if not isinstance(product, dict) or not all(
            isinstance(product.get(k), str) for k in ("code", "name")
        ):
            raise UsageError(
                f'{source}: [[docs.products]] #{i + 1} needs code = "..." and name = "..."'
            )
    return Config(
        preset=preset,
        source=source,
        backend_module=_string(data, "backend_module", source),
        device=_string(data, "device", source, "auto"),
        test_roots=_strings(data, "test_roots", source, ("test",)),
        active_branches=_strings(data, "active_branches", source),
        maintenance_branches=_strings(data, "maintenance_branches", source),
        maintenance_reason=_string(data, "maintenance_reason", source),
        maintenance_reason_zh=_string(data, "maintenance_reason_zh", source),
        envs=envs,
        scaffold=_table(data, "scaffold", source),
        docs=docs,
        report=_table(data, "report", source),
        upstream=_table(data, "upstream", source),
        backend_aliases=_aliases(data, source),
        ray=_ray(data, source),
        run=_run(data, source),
        torch_release=_torch_release(data, source),
    )


def load_preset(name: str) -> Config:
    return _build(_preset_data(name), name, f"<preset {name}>")


#: a backend package in a repo's tree -> the preset that knows its conventions
BACKEND_MARKERS = (("torch_npu/__init__.py", "torch_npu"),)


def detect_preset(repo: str | Path) -> str | None:
    """The preset of the backend whose package the repo holds (in its work tree or at HEAD)."""
    import subprocess

    for marker, preset in BACKEND_MARKERS:
        if (Path(repo) / marker).is_file():
            return preset
        found = subprocess.run(
            ["git", "-C", str(repo), "cat-file", "-e", f"HEAD:{marker}"],
            capture_output=True,
            check=False,
        )
        if found.returncode == 0:
            return preset
    return None


def _without_file(repo: str | Path | None) -> Config:
    """No torchparity.toml: a preset detected in --repo, else the generic defaults; either way, said once."""
    from dataclasses import replace

    if repo is not None and Path(repo).is_dir():
        preset = detect_preset(repo)
        if preset is not None:
            return replace(
                load_preset(preset),
                notice=(
                    f"no {CONFIG_FILENAME} in {repo}: it holds the {preset} package, so the {preset} preset is used "
                    f'(write preset = "{preset}" in {CONFIG_FILENAME} to make it explicit)'
                ),
            )
        return replace(
            load_preset("default"),
            notice=(
                f"no {CONFIG_FILENAME} in {repo} and no known backend package in it: generic defaults are used; "
                f'choose a preset with preset = "NAME" in {CONFIG_FILENAME} ({", ".join(PRESETS[1:])})'
            ),
        )
    return load_preset("default")


#: the flag that lets a backend repository's own config choose the report templates
ALLOW_REPO_TEMPLATES = "--allow-repo-templates"


def _without_repo_templates(config: Config, file: Path) -> Config:
    """``config`` (read from the repository's own ``file``) without its ``[report] templates``, and a note."""
    from dataclasses import replace

    report = {k: v for k, v in config.report.items() if k != "templates"}
    note = (
        f"[report] templates = {str(config.report['templates'])!r} in {file} is ignored: templates run on "
        "this machine, and a repository's own config does not choose code to run here; the built-in "
        f"templates are used (verify, batch and report take {ALLOW_REPO_TEMPLATES} to use the repository's, "
        "rendered in a sandbox; or name a config of your own with --config)"
    )
    return replace(config, report=report, notice="; ".join(n for n in (config.notice, note) if n))


def load_config(
    path: str | Path | None = None,
    repo: str | Path | None = None,
    *,
    allow_repo_templates: bool = False,
) -> Config:
    """The config for this invocation (see the module docstring for the lookup order);
    ``allow_repo_templates``: keep the ``[report] templates`` of a config found in ``repo``."""
    if path is not None:
        file = Path(path)
        if not file.is_file():
            raise UsageError(f"config file not found: {file}; pass an existing file to --config")
    else:
        candidates = [Path(repo) / CONFIG_FILENAME] if repo is not None else []
        candidates.append(Path.cwd() / CONFIG_FILENAME)
        file = next((c for c in candidates if c.is_file()), None)  # type: ignore[assignment]
        if file is None:
            return _without_file(repo)
    data = _read_toml(
        read_text_file(file, "--config" if path is not None else "config file"), str(file)
    )
    preset = str(data.pop("preset", "default"))
    merged = _merge(_preset_data(preset), data)
    # a reason the file words in one language only: the preset's wording in the other is of another reason
    for key, other in (
        ("maintenance_reason", "maintenance_reason_zh"),
        ("maintenance_reason_zh", "maintenance_reason"),
    ):
        if key in data and other not in data:
            merged.pop(other, None)
    config = _build(merged, preset, str(file))
    from_repo = path is None and repo is not None and file == Path(repo) / CONFIG_FILENAME
    if from_repo and config.report.get("templates") and not allow_repo_templates:
        return _without_repo_templates(config, file)
    return config


def emulated_config(config: Config, emulate: str) -> Config:
    """The config a scaffold under ``--emulate`` follows: ``config`` where it names a backend, else the
    preset of the backend the emulation stands for (its device variable, imports and test base)."""
    emu = emulation(emulate)
    return config if config.backend_module else load_preset(emu.module)
