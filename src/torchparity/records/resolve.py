"""The resolve stage's record: where an API lives, what it dispatches, what it is.

``ApiInfo`` is the record (``ResolveRecord``); ``Trace`` is also what the agent
answers for a dispatch trace, so its JSON keeps the agent's shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .base import Record


@dataclass(frozen=True)
class OpCount:
    """One operator (``aten::add.Tensor``) on one set of devices, and how often."""

    op: str
    devices: tuple[str, ...]
    count: int

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, "devices": list(self.devices), "count": self.count}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> OpCount:
        return cls(str(doc["op"]), tuple(doc.get("devices", ())), int(doc["count"]))


@dataclass(frozen=True)
class TestOps:
    """How many operators one test dispatched (file traces)."""

    id: str
    ops: int


@dataclass(frozen=True)
class Trace:
    """What a call, a call sample or some tests dispatched, on which devices.

    ``status``: ``ok`` (ran to the end), ``error`` (the code raised; ``ops`` holds
    what ran before), ``unavailable`` (this torch has no dispatch mode),
    ``no-sample`` (nothing to run: no call sample, and the facts probe found no call).

    ``source`` says where a call trace's call came from: ``sample`` (a built-in call sample),
    ``probe`` (a call the facts probe built, for an API without a sample); empty for code a user
    gave and for test files.
    """

    target: str
    status: str
    device_type: str
    ops: tuple[OpCount, ...] = ()
    total_ops: int = 0
    device_tensors_created: int = 0
    tensors_created: tuple[tuple[str, int], ...] = ()
    devices: tuple[str, ...] = ()
    ignored_ops: tuple[OpCount, ...] = ()
    error: str = ""
    #: file traces: the tests selected, ops per test, how they ended
    tests: tuple[TestOps, ...] = ()
    pattern: str | None = None
    tests_run: int | None = None
    successful: bool | None = None
    #: code traces: the code that ran (setup and teardown untraced)
    code: tuple[tuple[str, str], ...] = ()
    #: where the traced call came from: "sample", "probe" or "" (code given, test files)
    source: str = ""

    @property
    def probed(self) -> bool:
        """The traced call is one the facts probe built (no call sample, no user code)."""
        return self.source == "probe"

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def tensors_total(self) -> int:
        return sum(n for _, n in self.tensors_created)

    def op_count(self, op: str, device: str | None = None) -> int:
        """Calls of ``op`` (exact name, or its base name before the overload) on ``device``."""
        return sum(
            o.count
            for o in self.ops
            if (o.op == op or o.op.split(".", 1)[0] == op)
            and (device is None or device in o.devices)
        )

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "target": self.target,
            "status": self.status,
            "error": self.error,
            "device_type": self.device_type,
            "ops": [o.to_json() for o in self.ops],
            "total_ops": self.total_ops,
            "device_tensors_created": self.device_tensors_created,
            "tensors_created": dict(self.tensors_created),
            "devices": list(self.devices),
            "ignored_ops": [o.to_json() for o in self.ignored_ops],
            "selection": {"pattern": self.pattern, "tests": [t.id for t in self.tests]},
            "tests": [{"id": t.id, "ops": t.ops} for t in self.tests],
            "tests_run": self.tests_run,
            "successful": self.successful,
        }
        if self.tests_run is None and not self.tests and self.pattern is None:
            # a call or sample trace: the agent's shape has no selection
            for key in ("selection", "tests", "tests_run", "successful"):
                del doc[key]
        if self.code:
            doc["code"] = dict(self.code)
        if self.source:
            doc["source"] = self.source
        return doc

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Trace:
        selection = doc.get("selection") or {}
        return cls(
            target=str(doc.get("target", "")),
            status=str(doc.get("status", "ok")),
            device_type=str(doc.get("device_type", "")),
            ops=tuple(OpCount.from_json(o) for o in doc.get("ops", ())),
            total_ops=int(doc.get("total_ops", 0)),
            device_tensors_created=int(doc.get("device_tensors_created", 0)),
            tensors_created=tuple(
                (str(k), int(v)) for k, v in (doc.get("tensors_created") or {}).items()
            ),
            devices=tuple(doc.get("devices", ())),
            ignored_ops=tuple(
                OpCount(str(o["op"]), tuple(o.get("devices", ())), int(o["count"]))
                for o in doc.get("ignored_ops", ())
            ),
            error=str(doc.get("error") or ""),
            tests=tuple(TestOps(str(t["id"]), int(t["ops"])) for t in doc.get("tests", ())),
            pattern=selection.get("pattern"),
            tests_run=doc.get("tests_run"),
            successful=doc.get("successful"),
            code=tuple((str(k), str(v)) for k, v in (doc.get("code") or {}).items()),
            source=str(doc.get("source") or ""),
        )


def merge_traces(traces: list[Trace], target: str) -> Trace:
    """One trace over several (the API's test files): counts summed, first error kept."""
    if len(traces) == 1:
        return traces[0]
    counts: dict[tuple[str, tuple[str, ...]], int] = {}
    ignored: dict[str, int] = {}
    created: dict[str, int] = {}
    for t in traces:
        for o in t.ops:
            counts[(o.op, o.devices)] = counts.get((o.op, o.devices), 0) + o.count
        for o in t.ignored_ops:
            ignored[o.op] = ignored.get(o.op, 0) + o.count
        for dev, n in t.tensors_created:
            created[dev] = created.get(dev, 0) + n
    ops = sorted(
        (OpCount(op, devs, n) for (op, devs), n in counts.items()),
        key=lambda o: (-o.count, o.op, o.devices),
    )
    bad = [t for t in traces if not t.ok]
    runs = [t.tests_run for t in traces if t.tests_run is not None]
    return Trace(
        target=target,
        status=bad[0].status if bad else "ok",
        device_type=traces[0].device_type if traces else "",
        ops=tuple(ops),
        total_ops=sum(o.count for o in ops),
        device_tensors_created=sum(t.device_tensors_created for t in traces),
        tensors_created=tuple(sorted(created.items())),
        devices=tuple(sorted({d for t in traces for d in t.devices})),
        ignored_ops=tuple(OpCount(op, (), n) for op, n in sorted(ignored.items())),
        error="; ".join(f"{t.target}: {t.error}" for t in bad if t.error),
        tests=tuple(x for t in traces for x in t.tests),
        pattern=None,
        tests_run=sum(runs) if runs else None,
        successful=all(t.successful for t in traces if t.tests_run is not None) if runs else None,
    )


@dataclass(frozen=True)
class Resolution:
    """What the agent found for one name, in the environment under test."""

    query: str
    path: str
    canonical: str
    aliases: tuple[str, ...]
    kind: str
    kind_detail: str
    signature: str | None
    module: str
    source: str
    public: bool
    public_reason: str
    docs_name: str
    docs_url: str
    owner_class: str | None
    owner_kind: str | None
    defined_in: str | None
    resolved_via: str
    torch_version: str

    @property
    def is_c_extension(self) -> bool:
        return self.source == "C extension"

    def doc_names(self) -> tuple[str, ...]:
        """The names a support page may list this API under; the first is the one a new entry takes.

        Task lists and pages write the name as PyTorch documents it (``torch.cuda.Event``,
        ``torch.Generator.seed``), often not the canonical one (``torch.cuda.streams.Event``,
        ``torch._C.Generator.seed``). First: PyTorch's docs name (the name as written when
        PyTorch's rules call that spelling public), else the canonical name; then every other
        spelling, the name as written among them when it is a full one.
        """
        first = self.docs_name or self.canonical
        spellings = [*self.aliases, self.canonical]
        if self.query in spellings or self.query == self.path:
            spellings.insert(0, self.query)
        return tuple(dict.fromkeys(n for n in (first, *spellings) if n))

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Resolution:
        return cls(
            query=str(doc["query"]),
            path=str(doc.get("path", doc["query"])),
            canonical=str(doc["canonical"]),
            aliases=tuple(doc.get("aliases", ())),
            kind=str(doc["kind"]),
            kind_detail=str(doc.get("kind_detail", "")),
            signature=doc.get("signature"),
            module=str(doc.get("module", "")),
            source=str(doc.get("source", "")),
            public=bool(doc.get("public")),
            public_reason=str(doc.get("public_reason", "")),
            docs_name=str(doc.get("docs_name", "")),
            docs_url=str(doc.get("docs_url", "")),
            owner_class=doc.get("owner_class"),
            owner_kind=doc.get("owner_kind"),
            defined_in=doc.get("defined_in"),
            resolved_via=str(doc.get("resolved_via", "")),
            torch_version=str(doc.get("torch_version", "")),
        )


@dataclass(frozen=True)
class Classification:
    """Category plus a one-sentence conclusion (zh, en) built from the evidence."""

    category: str
    conclusion_zh: str
    conclusion_en: str
    #: what the category rests on: "trace" (a dispatch trace ran) or "resolution" (static facts)
    evidence: str

    def to_json(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "conclusion_zh": self.conclusion_zh,
            "conclusion_en": self.conclusion_en,
            "evidence": self.evidence,
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Classification:
        return cls(
            str(doc.get("category", "")),
            str(doc.get("conclusion_zh", "")),
            str(doc.get("conclusion_en", "")),
            str(doc.get("evidence", "")),
        )


@dataclass(frozen=True)
class ApiInfo(Record):
    """Resolution + trace + classification: the resolve stage's record, which later stages consume."""

    SCHEMA: ClassVar[str] = "torchparity.resolve/2"
    KIND: ClassVar[str] = "resolve"

    resolution: Resolution
    classification: Classification
    trace: Trace | None
    device_type: str
    #: every trace that ran (call sample or the facts probe's call, each test file); ``trace`` is the
    #: one classified
    traces: tuple[Trace, ...] = field(default=())

    @property
    def canonical(self) -> str:
        return self.resolution.canonical

    @property
    def category(self) -> str:
        return self.classification.category

    def to_json(self) -> dict[str, Any]:
        r = self.resolution
        return {
            "query": r.query,
            "path": r.path,
            "canonical": r.canonical,
            "aliases": list(r.aliases),
            "kind": r.kind,
            "kind_detail": r.kind_detail,
            "signature": r.signature,
            "module": r.module,
            "source": r.source,
            "public": r.public,
            "public_reason": r.public_reason,
            "docs_name": r.docs_name,
            "docs_url": r.docs_url,
            "owner_class": r.owner_class,
            "owner_kind": r.owner_kind,
            "defined_in": r.defined_in,
            "resolved_via": r.resolved_via,
            "classification": self.classification.to_json(),
            "trace": self.trace.to_json() if self.trace is not None else None,
            "device_type": self.device_type,
            "torch_version": r.torch_version,
            "traces": [t.to_json() for t in self.traces],
        }

    @classmethod
    def from_json(cls, doc: Any) -> ApiInfo:
        trace = doc.get("trace")
        return cls(
            resolution=Resolution.from_json(doc),
            classification=Classification.from_json(doc.get("classification") or {}),
            trace=Trace.from_json(trace) if trace else None,
            device_type=str(doc.get("device_type", "")),
            traces=tuple(Trace.from_json(t) for t in doc.get("traces") or ()),
        )

    # the facts a text states, by name (templates read ``m.resolve.source``)
    @property
    def query(self) -> str:
        return self.resolution.query

    @property
    def source(self) -> str:
        return self.resolution.source

    @property
    def public(self) -> bool:
        return self.resolution.public

    @property
    def public_reason(self) -> str:
        return self.resolution.public_reason

    @property
    def kind(self) -> str:
        return self.resolution.kind

    @property
    def aliases(self) -> tuple[str, ...]:
        return self.resolution.aliases


#: the resolve stage's record under its stage name
ResolveRecord = ApiInfo
