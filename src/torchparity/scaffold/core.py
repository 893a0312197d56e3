"""``scaffold_test``: facts from the agent, a family's plan, a file written (or methods added)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import pyast
from ..api.records import ApiInfo
from ..checks.checklist import alias_table
from ..config import Config
from ..errors import ExitCode, TorchparityError, UsageError
from ..exec.session import AgentJobCrashed, AgentSession, agent_session
from ..fsutil import atomic_write, read_text_file
from ..records.scaffold import ScaffoldRecord
from .check import checked_facts, failing_on_device, on_device
from .conventions import Conventions, conventions_from, device_expression
from .facts import Facts, FactsUnreadable, decode_facts
from .families import build_plan, candidates, tensor_formula, wants
from .filehead import add_docstring, add_header
from .insert import (
    device_reference,
    find_class,
    insert_methods,
    is_device_call,
    module_bindings,
    parse,
)
from .plan import TestPlan
from .render import docstring_parts, render_file, shown_name, used_imports

#: seconds for the facts job (importing op_db and checking every dtype on the CPU)
FACTS_TIMEOUT = 600.0


class FailsOnDevice(TorchparityError):
    """The test scaffold wrote (run once more on its device, in a new interpreter) fails there."""

    exit_code = ExitCode.FAILED


@dataclass(frozen=True)
class ScaffoldResult:
    api: str
    family: str
    path: str
    content: str
    #: the test methods written (helpers not included)
    methods: tuple[str, ...]
    #: True for a new file, False for methods added to an existing one
    created: bool
    class_name: str
    device_type: str
    torch_version: str
    spelling: str
    summary: str
    #: why some tests fail on purpose (what to fill in); empty when every test is complete
    fill_in: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    helpers: tuple[str, ...] = ()
    imports_added: tuple[str, ...] = ()
    written: bool = True
    #: what ``--into`` added at the top of the file for the checklist (copyright header, docstring)
    head_added: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return not self.fill_in

    def to_record(
        self, path: str | None = None, refs: tuple[str, ...] = (), outside_repo: bool = False
    ) -> ScaffoldRecord:
        """The scaffold stage's record; ``path`` as the report names the file (repo-relative)."""
        return ScaffoldRecord(
            api=self.api,
            family=self.family,
            path=path or self.path,
            content=self.content,
            methods=self.methods,
            created=self.created,
            class_name=self.class_name,
            device_type=self.device_type,
            torch_version=self.torch_version,
            spelling=self.spelling,
            summary=self.summary,
            fill_in=self.fill_in,
            notes=self.notes,
            refs=refs,
            outside_repo=outside_repo,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "api": self.api,
            "family": self.family,
            "path": self.path,
            "created": self.created,
            "written": self.written,
            "class": self.class_name,
            "methods": list(self.methods),
            "helpers": list(self.helpers),
            "imports_added": list(self.imports_added),
            "head_added": list(self.head_added),
            "device_type": self.device_type,
            "torch_version": self.torch_version,
            "spelling": self.spelling,
            "summary": self.summary,
            "complete": self.complete,
            "fill_in": list(self.fill_in),
            "notes": list(self.notes),
            "content": self.content,
        }


def _resolution_doc(info: ApiInfo) -> dict[str, Any]:
    return dataclasses.asdict(info.resolution)


def _deferrable(info: ApiInfo, backend_module: str) -> bool:
    """Whether the probe (the slowest fact: it tries calls, some of which wait for their timeout) can wait
    until the families before ``measured`` are checked: only ``measured`` asks for it."""
    fams = candidates(info, backend_module)
    return "measured" in fams and "probe" not in wants([f for f in fams if f != "measured"])


def _after_measured(info: ApiInfo, family: str, backend_module: str) -> bool:
    """Whether ``family`` (kept without the probe) is the fill-in or comes after ``measured`` (``switch``):
    then the probe is asked for, and ``measured`` is tried in its place first."""
    fams = candidates(info, backend_module)
    return family == "fill-in" or family in fams and fams.index(family) > fams.index("measured")


def _facts_request(
    info: ApiInfo, dtypes: Sequence[str] | None, backend_module: str, probe: bool = True
) -> dict[str, Any]:
    fams = candidates(info, backend_module)
    args: dict[str, Any] = {
        "resolution": _resolution_doc(info),
        "wants": [w for w in wants(fams) if probe or w != "probe"],
    }
    if dtypes:
        args["dtypes"] = list(dtypes)
    if "tensor" in fams:
        args["formula"] = tensor_formula(info)
    return args


def scaffold_facts(
    info: ApiInfo,
    session: AgentSession,
    dtypes: Sequence[str] | None = None,
    backend_module: str = "",
    check: bool = True,
) -> Facts:
    """The agent's facts for the families this API may take.

    With ``check``, each family's candidate test is also run on the CPU by the
    agent, as written and with the API replaced by a stand-in (``facts["checked"]``).
    """
    return scaffold_facts_many([info], session, dtypes, backend_module, check)[0]


def scaffold_facts_many(
    infos: Sequence[ApiInfo],
    session: AgentSession,
    dtypes: Sequence[str] | None = None,
    backend_module: str = "",
    check: bool = True,
) -> list[Facts]:
    """Facts for several APIs in one agent job (torch's op_db is imported once), checked in one more.

    With ``check``, an API whose only family that probes calls is ``measured`` is probed only when no
    family before it is kept after the check (a second round for those): the plan is the same, sooner."""
    defer = [check and _deferrable(i, backend_module) for i in infos]
    items = [
        _facts_request(i, dtypes, backend_module, probe=not d)
        for i, d in zip(infos, defer, strict=True)
    ]
    facts = _ask_facts(session, items)
    if check:
        checked_facts(infos, facts, session, backend_module)
        again = [
            n
            for n, d in enumerate(defer)
            if d
            and _after_measured(
                infos[n],
                build_plan(infos[n], facts[n], "DEVICE", backend_module).family,
                backend_module,
            )
        ]
        if again:
            more = scaffold_facts_many(
                [infos[n] for n in again], session, dtypes, backend_module, check=False
            )
            for n, f in zip(again, more, strict=True):
                facts[n] = f
            checked_facts([infos[n] for n in again], more, session, backend_module)
    return facts


def _ask_facts(session: AgentSession, items: list[dict[str, Any]]) -> list[Facts]:
    """The agent's facts for ``items`` (decoded: ``decode_facts``); a batch whose job crashed is asked
    again in halves.

    An API whose measuring ends the interpreter (a segfault inside torch, an
    ``os._exit``) loses only its own facts: they say why, and it gets the fill-in.
    """
    try:
        answer = session.call(
            "scaffold_facts", {"items": items}, FACTS_TIMEOUT + 60.0 * len(items)
        )["items"]
        return [_decoded(doc, item) for doc, item in zip(answer, items, strict=True)]
    except AgentJobCrashed as exc:
        if len(items) > 1:
            half = len(items) // 2
            return _ask_facts(session, items[:half]) + _ask_facts(session, items[half:])
        return [_without_facts(items[0], f"measuring its facts ended the interpreter: {exc}")]


def _decoded(doc: object, item: dict[str, Any]) -> Facts:
    """One API's answer decoded; one of another shape costs that API its facts, not the batch's."""
    path = str(item["resolution"].get("path", ""))
    try:
        return decode_facts(doc, f"the agent's facts for {path}")
    except FactsUnreadable as exc:
        return _without_facts(item, str(exc))


def _without_facts(item: dict[str, Any], why: str) -> Facts:
    """Facts that say only why there are none: every family wanting one finds its problem, and the
    API gets the fill-in."""
    return decode_facts(
        {
            "problem": why,
            "states": [],
            **{w: {"problem": why, "found": False} for w in item["wants"]},
        }
    )


def check_destination(into: str | Path | None, out_dir: str | Path | None) -> None:
    """Refuse a bad --into/--out before any interpreter is started."""
    if into is not None and out_dir is not None:
        raise UsageError("pass either --into FILE (add to it) or --out DIR (a new file), not both")
    if into is not None:
        if not Path(into).is_file():
            raise UsageError(
                f"test file not found: {into}; pass an existing file to --into, or use --out DIR"
            )
        parse(read_text_file(into, "--into"), str(into))
    elif out_dir is not None and Path(out_dir).exists() and not Path(out_dir).is_dir():
        raise UsageError(f"--out {out_dir} is not a folder; pass a folder for the new test file")


def _targets(conv: Conventions, plan_file: str, into: Path | None, out_dir: Path | None) -> Path:
    check_destination(into, out_dir)
    if into is not None:
        return into
    folder = out_dir if out_dir is not None else Path(conv.test_dir)
    path = folder / plan_file
    if path.exists():
        raise UsageError(
            f"{path} already exists; add to it with --into {path}, or pass another --out DIR"
        )
    return path


def _write(path: Path, content: str) -> None:
    """Write ``content`` whole or not at all; a file added to keeps its mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, content, mode=path.stat().st_mode & 0o7777 if path.exists() else None)


def _check_source(content: str, path: Path) -> None:
    try:
        pyast.parse_module(content, filename=str(path))
    except SyntaxError as exc:  # a template bug, never the user's input
        raise RuntimeError(
            f"internal error: the scaffolded {path} does not parse ({exc.msg}, line {exc.lineno})"
        ) from exc


def scaffold_test(
    api_info: ApiInfo,
    config: Config,
    *,
    python: str,
    device: str = "auto",
    into: str | Path | None = None,
    out_dir: str | Path | None = None,
    backend_module: str = "",
    dtypes: Sequence[str] | None = None,
    class_name: str | None = None,
    session: AgentSession | None = None,
    facts: Mapping[str, Any] | None = None,
    write: bool = True,
    year: int | None = None,
) -> ScaffoldResult:
    """Write the API's test in the backend's conventions (or add its methods ``into`` a file).

    The facts come from the agent in ``python`` (``session`` reuses a runner), or are given
    (``facts``: kept from an earlier run, decoded as the agent's answer is);
    ``dtypes`` narrows an OpInfo test (e.g. from the docs restrictions). With
    ``write=False`` nothing is written and the result carries the content.
    """
    conv = conventions_from(config)
    backend = backend_module or config.backend_module
    into_path = Path(into) if into is not None else None
    out_path = Path(out_dir) if out_dir is not None else None
    original = ""
    check_destination(into_path, out_path)  # refused before the agent starts
    if into_path is not None:
        original = into_path.read_text("utf-8")
    measured = facts is None
    if facts is None:
        if session is None:
            with agent_session(python, backend, device) as s:
                return scaffold_test(
                    api_info,
                    config,
                    python=python,
                    device=device,
                    into=into,
                    out_dir=out_dir,
                    backend_module=backend_module,
                    dtypes=dtypes,
                    class_name=class_name,
                    session=s,
                    write=write,
                    year=year,
                )
        known = scaffold_facts(api_info, session, dtypes, backend)
    else:  # given from outside (kept facts, a replay): read as the agent's answer is
        known = decode_facts(facts, "the facts given")
    device_type = str(known.get("device_type") or api_info.device_type or "cpu")
    var = conv.device_variable
    device_ref = var
    device_line = f"{var} = {device_expression(device_type)}"
    if into_path is not None:
        module = parse(original, str(into_path))
        bound = module_bindings(module)
        cls = find_class(module, str(into_path), class_name)
        own = device_reference(module, cls, var)
        if own:  # the file's own device variable, class attribute or setUp attribute
            device_ref = own
        elif var in bound and not is_device_call(bound[var]):
            device_ref = f"torch.device({var})"
        plan = build_plan(api_info, known, device_ref, backend)
        used = "".join(m.source for m in plan.methods) + (
            "    " + device_line if plan.uses_device and not own else ""
        )
        imports = used_imports(("import torch", *plan.imports), used)
        ins = insert_methods(
            original,
            str(into_path),
            plan.methods,
            imports,
            device_line if plan.uses_device and not own else "",
            cls.name.value,
        )
        text, added, notes = _complete_head(
            ins.text, str(into_path), api_info, plan, conv, config, device_type, year
        )
        _check_source(text, into_path)
        if write:
            _write(into_path, text)
        result = _result(
            plan,
            into_path,
            text,
            False,
            ins.class_name,
            device_type,
            known,
            helpers=ins.helpers,
            imports=ins.imports,
            written=write,
        )
        return dataclasses.replace(result, head_added=added, notes=(*result.notes, *notes))
    plan = build_plan(api_info, known, device_ref, backend)
    path = _targets(conv, plan.file_name, None, out_path)
    content = render_file(
        plan,
        conv,
        device_line=device_line,
        device_type=device_type,
        torch_version=str(known.get("torch_version", "")),
        year=year,
    )
    _check_source(content, path)
    failing: list[str] = []
    if measured and session is not None and on_device(known) and not plan.fill_in:
        failing = failing_on_device(session, known, path.name, content, plan.tests, backend)
    if write:
        _write(path, content)
    if failing:
        raise FailsOnDevice(
            f"the scaffolded {path} fails on {on_device(known)}, where it will run ({failing[0]}); "
            + ("written all the same: " if write else "")
            + "a backend bug, or an expectation that does not hold there: check it before keeping it"
        )
    return _result(
        plan,
        path,
        content,
        True,
        plan.class_name,
        device_type,
        known,
        helpers=tuple(m.name for m in plan.methods if m.helper),
        imports=(),
        written=write,
    )


def _complete_head(
    text: str,
    path: str,
    info: ApiInfo,
    plan: TestPlan,
    conv: Conventions,
    config: Config,
    device_type: str,
    year: int | None,
) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """``text`` with what the checklist's copyright and docstring items ask for, where missing:
    (the text, what was added, why something was not)."""
    header = add_header(text, path, conv.copyright, conv.header(year))
    res = info.resolution
    spellings = (res.query, res.path, *res.aliases)
    table = alias_table(res.canonical, [s for s in spellings if s], res.canonical, config=config)
    title, body = docstring_parts(plan, conv, device_type)
    doc = add_docstring(header.text, path, res.canonical, table, title, body, shown_name(plan))
    return doc.text, (*header.added, *doc.added), (*header.notes, *doc.notes)


def _result(
    plan: TestPlan,
    path: Path,
    content: str,
    created: bool,
    class_name: str,
    device_type: str,
    facts: Facts,
    *,
    helpers: tuple[str, ...],
    imports: tuple[str, ...],
    written: bool,
) -> ScaffoldResult:
    return ScaffoldResult(
        api=plan.api,
        family=plan.family,
        path=str(path),
        content=content,
        methods=tuple(plan.tests),
        created=created,
        class_name=class_name,
        device_type=device_type,
        torch_version=str(facts.get("torch_version", "")),
        spelling=plan.spelling,
        summary=plan.summary,
        fill_in=plan.fill_in,
        notes=plan.notes,
        helpers=helpers,
        imports_added=imports,
        written=written,
    )
