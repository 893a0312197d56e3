"""The upstream stage's record: the API's PyTorch official tests, selected, run on each target, per test.

One ``UpstreamTarget`` per (source, environment): the source is a ref of the
backend repo (its vendored copies of PyTorch's test files) or a tag of a
PyTorch clone (its ``test/`` at the environment's torch version). Each test the
stage selected gets one ``UpstreamTest`` saying exactly what happened to it:

==============  =============================================================
status          meaning
==============  =============================================================
``passed``      the runner reported it passed
``failed``      it failed, errored or passed unexpectedly (``outcome`` says which)
``disabled``    the backend's disabled list removes it here (``entry`` says why)
``skipped``     the test skipped itself (``detail`` holds its reason)
``not_started`` it never ran: its file could not start (``missing`` names the
                module or file), or the file holds no instance of it for this device
==============  =============================================================

With ``recheck`` the disabled tests ran too, without the list: ``rechecked``
holds that run's outcome, and a disabled test that passed is a stale entry
(``stale``), named by the exact key to delete from the list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .base import Record
from .notes import Note

#: a test's statuses, in the order a text lists them
STATUSES = ("passed", "failed", "disabled", "skipped", "not_started")
#: a target's results: PASS (a test passed, none failed, every test that applies here ran), FAIL,
#: PARTIAL (tests passed, none failed, but tests that apply here did not start: not a pass), NOT_RUN
#: (no selected test ran), ERROR
RESULTS = ("PASS", "FAIL", "PARTIAL", "NOT_RUN", "ERROR")
#: why a test did not start that says it does not apply to this target (the file holds no instance of
#: it for the device; its instances are of other operators' OpInfos): not a test that should have run
NOT_HERE = frozenset({"upstream_no_instance", "upstream_opinfo_other"})


@dataclass(frozen=True)
class DisabledEntry:
    """One entry of the backend's disabled list, as the list writes it."""

    key: str  # the JSON key: "test_x_npu (__main__.TestFooPRIVATEUSE1)"
    list_file: str  # repo-relative path of the list it is in
    reason: str = ""
    platforms: tuple[str, ...] = ()
    #: the category file's code for it (DTYPE, VALUE, ...) and its own words, "" when it has none
    category: str = ""
    category_detail: str = ""
    #: what the category code means (the category names file), "" when not given
    category_meaning: str = ""


@dataclass(frozen=True)
class Missing:
    """What a file needed and did not find: a module, or a file (a fixture)."""

    kind: str  # module | name (a module without a name the file imports) | file | error
    name: str  # the module's dotted name, the file's path, or the exception's type
    detail: str = ""  # the exception's own line
    #: the repo holds no such file at this ref (a module or fixture of the test tree), vs. an
    #: environment that lacks an installed module
    in_repo: bool = False
    #: where the repo would have it (test/autograd/test_complex.py), "" when not a file of the tree
    path: str = ""


@dataclass(frozen=True)
class UpstreamTest:
    """One official test at one target."""

    __test__ = False  # not a pytest class

    #: the test as coverage names it in the source: path::Class::test (the template of a
    #: device-generic or parametrized test)
    test: str
    file: str
    #: the runner's id of the instance that ran (``__main__.TestFooPRIVATEUSE1.test_x_npu_float32``);
    #: "" when no instance exists
    id: str
    #: what the command line passes to select it (``TestFooPRIVATEUSE1.test_x_npu_float32``, or a
    #: pytest node id)
    selector: str
    status: str  # STATUSES
    outcome: str = ""  # the runner's own word: passed | failed | error | skipped | xfail | xpass
    detail: str = ""  # a skip's reason, a failure's exception line, why it did not start
    entry: DisabledEntry | None = None
    #: why a test did not start, as a code the texts word per language (``phrases``); None otherwise
    why: Note | None = None
    #: the OpInfo an OpInfo-driven instance was made for ("" for other tests)
    opinfo: str = ""
    #: the device type of a device-generic instance (cpu, npu), "" for other tests
    device_type: str = ""
    #: with --recheck-disabled, the outcome of the disabled test's own run ("" when not rechecked)
    rechecked: str = ""
    rechecked_detail: str = ""

    @property
    def stale(self) -> bool:
        """A disabled test that passed when run without the list: its entry can go."""
        return self.status == "disabled" and self.rechecked == "passed"


@dataclass(frozen=True)
class UpstreamRun:
    """One command: a file's selected tests (or, rechecking, its disabled ones)."""

    file: str
    purpose: str  # run | recheck
    command: str  # the literal command (with the variables it sets)
    how: str  # how it was executed (a warm worker's child, a fresh interpreter)
    status: str  # the agent step's status: OK | FAIL | TIMEOUT | CRASH | WORKER_DIED | ERROR
    exit_code: int | None
    output: str
    selected: tuple[str, ...] = ()  # the selectors passed
    #: the runner's account: kind (unittest/pytest), sessions started and finished, tests started
    runner_kind: str = ""
    runner_sessions: int = 0
    runner_finished: int = 0
    tests_run: int = 0
    duration: float = 0.0


@dataclass(frozen=True)
class UpstreamFile:
    """One official test file at one target: what it holds for the device and what the list removes."""

    path: str
    sha256: str
    entry: str  # unittest (torch's run_tests or unittest.main: argv test names) | pytest (node ids)
    #: it could not be imported (nothing of it can run): what it lacked
    missing: Missing | None = None
    #: tests the file holds for this target's device (instances, after instantiation)
    tests_for_device: int = 0
    #: of those, how many the disabled list removes here
    disabled_for_device: int = 0
    #: the listing's own output (warnings, the import's traceback)
    listing_output: str = ""


@dataclass(frozen=True)
class UpstreamTarget:
    label: str  # master@a2, or pytorch-v2.7.1@a2
    source: str  # backend | pytorch
    ref: str  # the backend ref, or the PyTorch tag
    commit: str
    env: str
    python: str
    device: str  # the device type the tests ran for (npu, cpu)
    torch_version: str = ""
    #: the platform the list's tags are matched against ("<device name>;<os platform>")
    platform: str = ""
    hardware: str = ""
    emulated: str = ""
    #: the disabled list used (repo-relative; "" when none is configured or none exists at the ref),
    #: its sha256, how many entries it holds, and the variable the backend reads a list from (unset
    #: in the runs: the list is applied by the selection)
    disabled_list: str = ""
    disabled_list_sha256: str = ""
    disabled_entries: int = 0
    #: keys of another shape than "test_x (module.Class)" (they never match, as in the backend)
    disabled_unreadable: int = 0
    disabled_variable: str = ""
    files: tuple[UpstreamFile, ...] = ()
    tests: tuple[UpstreamTest, ...] = ()
    runs: tuple[UpstreamRun, ...] = ()
    result: str = "NOT_RUN"  # RESULTS
    #: why the target is ERROR (the probe failed, the device is missing), "" otherwise
    error: str = ""
    #: the evidence log of this target (KEY=VALUE header, ENVIRONMENT PROBE, UPSTREAM TESTS)
    log: str = ""

    @property
    def missed(self) -> tuple[UpstreamTest, ...]:
        """The tests that apply here and did not start (their file could not start, the run died before
        reporting them, the budget left them out)."""
        return tuple(
            t
            for t in self.tests
            if t.status == "not_started" and (t.why is None or t.why.code not in NOT_HERE)
        )

    @property
    def stale(self) -> tuple[DisabledEntry, ...]:
        """Entries to delete: every test an entry disables here passed when run without the list."""
        by_key: dict[str, list[UpstreamTest]] = {}
        for t in self.tests:
            if t.status == "disabled" and t.entry is not None:
                by_key.setdefault(t.entry.key, []).append(t)
        return tuple(
            ts[0].entry
            for ts in by_key.values()
            if ts[0].entry is not None and all(t.rechecked == "passed" for t in ts)
        )


@dataclass(frozen=True)
class UpstreamRecord(Record):
    SCHEMA: ClassVar[str] = "torchparity.upstream/1"
    KIND: ClassVar[str] = "upstream"

    api: str
    #: how the tests were chosen: direct (the API's direct tests), related (none is direct: the
    #: tests of the API's parent, as the community does), given (--test)
    selection: str
    recheck: bool = False
    targets: tuple[UpstreamTarget, ...] = ()
    #: the OpInfo names of the API whose OpInfo-driven tests were chosen
    opinfos: tuple[str, ...] = ()
    #: why a source was not searched (no tag for this torch version, ...), in the terminal's words
    notes: tuple[str, ...] = ()

    @property
    def result(self) -> str:
        """ERROR, FAIL, then PARTIAL (a target partly run, or one passed while another ran none of the
        tests that apply there), PASS, NOT_RUN."""
        results = [t.result for t in self.targets]
        for r in ("ERROR", "FAIL", "PARTIAL"):
            if r in results:
                return r
        if "PASS" in results:
            missed = any(t.result == "NOT_RUN" and t.missed for t in self.targets)
            return "PARTIAL" if missed else "PASS"
        return "NOT_RUN"


__all__ = [
    "NOT_HERE",
    "RESULTS",
    "STATUSES",
    "DisabledEntry",
    "Missing",
    "UpstreamFile",
    "UpstreamRecord",
    "UpstreamRun",
    "UpstreamTarget",
    "UpstreamTest",
]
