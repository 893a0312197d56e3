"""Every text states only what its run's records hold, in one language, and is the same text anywhere.

For every fixture run set and every report kind, each fact a text states (trace status and op
count, device tensors created, device type and count, hardware, test counts, versions, branch,
changed files) is checked against the records the text was rendered from; a Chinese text holds no
English sentence and an English text no Chinese character, quoted evidence excepted (code spans and
fences, the raw log, names the records quote from elsewhere). A run re-rendered after another verb
wrote to its store, and a run that went through a bundle into another store, give byte-identical texts.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from tests.report.report_fixtures import API, Fixture, build_fixture
from tests.report.upstream_fixture import NOTE, upstream_record
from torchparity.cli import main
from torchparity.records import (
    ApiCoverage,
    ApiInfo,
    Note,
    RunRecords,
    Step,
    TargetEvidence,
    UpstreamRecord,
)
from torchparity.records.run import RunInfo
from torchparity.report import ReportModel, build_report, render
from torchparity.store import Store, keep, read_run

KINDS = ("pr", "comment", "markdown-summary", "junit", "json")
TEXT_KINDS = ("pr", "comment", "markdown-summary")

TRACE = {
    "target": "test/npu/test_grad_mode_clone.py",
    "status": "ok",
    "device_type": "npu",
    "error": "",
    "ops": [
        {"op": "aten::mul.Tensor", "devices": ["npu"], "count": 3},
        {"op": "aten::ones", "devices": ["npu"], "count": 1},
    ],
    "total_ops": 4,
    "device_tensors_created": 2,
    "tensors_created": {"npu": 2},
    "devices": ["npu"],
    "ignored_ops": [],
    "selection": {"pattern": "clone", "tests": ["__main__.TestGradModeClone.test_x"]},
    "tests": [{"id": "__main__.TestGradModeClone.test_x", "ops": 4}],
    "tests_run": 1,
    "successful": True,
}


def _variant(runs: list[RunRecords], **changes: object) -> list[RunRecords]:
    """The runs with every target record changed as given (a cpu run under configured hardware, ...)."""
    out = []
    for r in runs:
        targets = tuple(
            TargetEvidence(_changed(ev.record, **changes), ev.log, ev.log_sha256, ev.record_sha256)
            for ev in r.targets
        )
        out.append(replace(r, targets=targets))
    return out


def _changed(rec, **changes):  # type: ignore[no-untyped-def]
    for key, value in changes.items():
        if key == "device":
            facts = [[k, v] for k, v in rec.probe.result["facts"] if not k.startswith("npu_")]
            facts = [[k, (value if k == "device_type" else v)] for k, v in facts]
            facts += [[f"{value}_available", True], [f"{value}_device_count", 1]]
            probe = replace(
                rec.probe, result=dict(rec.probe.result, facts=facts, device_type=value)
            )
            rec = rec.replace(probe=probe, device=value)
        elif key == "trace":
            trace = Step(
                name="trace",
                status="OK",
                exit_code=0,
                test_file=rec.test_files[0].path,
                result={"trace": value},
            )
            rec = rec.replace(trace=[trace])
        else:
            rec = rec.replace(**{key: value})
    return rec


def _hostile(runs: list[RunRecords]) -> list[RunRecords]:
    """Records whose values are English prose from the tool or the agent: a private API's reason, a C
    extension's source, a file coverage could not parse, a broken docs link, a failing checklist."""
    out = []
    for r in runs:
        res = r.resolve
        if res is not None:
            res = replace(
                res,
                resolution=replace(
                    res.resolution,
                    public=False,
                    source="C extension",
                    public_reason="segment '_C' of torch._C.Generator.seed starts with an underscore",
                ),
            )
        cov = r.coverage
        if cov is not None:
            cov = replace(
                cov,
                refs=tuple(
                    replace(
                        x,
                        skipped_files=(
                            ("test/npu/test_bad.py", "SyntaxError: invalid syntax (line 3)"),
                        ),
                    )
                    for x in cov.refs
                ),
            )
        docs = r.docs_check
        if docs is not None:
            docs = replace(
                docs,
                versions=tuple(
                    replace(v, link_ok=False, link_problem="no 原生文档 link to the page")
                    if v.present
                    else v
                    for v in docs.versions
                ),
            )
        out.append(replace(r, resolve=res, coverage=cov, docs_check=docs))
    return out


def _sets(fx_full: Fixture, fx_bare: Fixture) -> dict[str, list[RunRecords]]:
    full = [read_run(fx_full.store, r) for r in fx_full.runs]
    bare = [read_run(fx_bare.store, r) for r in fx_bare.runs]
    no_repo = [
        replace(r, task=r.task.replace(repo=False) if r.task else None)
        for r in _variant(bare, ref="local", commit="n/a (files as on disk)", label="local@python")
    ]
    change_run = read_run(
        fx_full.store, keep(fx_full.store, "change", ["report"], _change_records(fx_full))
    )
    return {
        "full": full,
        "bare": bare,
        "traced": _variant(full, trace=TRACE),
        "cpu-under-hardware": _variant(full, device="cpu"),
        "notes": _variant(
            bare,
            notes=[
                Note.of("not_committed", path="test/npu/test_grad_mode_clone.py", ref="v2.7.1"),
                Note.of("environment_broken", detail="import torch_npu failed (No module)"),
            ],
        ),
        "no-repo": no_repo,
        "hostile": _hostile(full) + [change_run],
        "upstream": [
            replace(
                full[0],
                upstream=upstream_record(),
                task=full[0].task.replace(upstream_note=NOTE) if full[0].task else None,
            ),
            *full[1:],
        ],
        "upstream-emulated": [
            replace(full[0], upstream=upstream_record(emulated="npu")),
            *full[1:],
        ],
    }


def _change_records(fx: Fixture) -> list:  # type: ignore[type-arg]
    """The change and checklist of the fixture's PR, as ``report --repo --range`` keeps them."""
    from torchparity.checks import checklist_for_runs, evaluate_change

    runs = [read_run(fx.store, r) for r in fx.runs]
    change = evaluate_change(fx.repo, f"master..{fx.head}", fx.config, API, runs[0].resolve)
    checklist = checklist_for_runs(change, runs, fx.config, API, runs[0].resolve, "add clone test")
    return [(API, change), (API, checklist)]


@pytest.fixture
def run_sets(tmp_path: Path) -> dict[str, list[RunRecords]]:
    return _sets(
        build_fixture(tmp_path / "full", with_records=True),
        build_fixture(tmp_path / "bare", with_records=False),
    )


# -- facts -------------------------------------------------------------------------------------
def _facts_hold(
    model: ReportModel, runs: list[RunRecords], kind: str, lang: str, text: str
) -> None:
    records = [ev.record for r in runs for ev in r.targets]
    assert [t.label for t in model.targets] == [r.label for r in records]
    for rec, t in zip(records, model.targets, strict=True):
        facts = rec.probe_facts
        dev = facts["device_type"]
        assert t.device_type == dev and t.device_count == facts.get(f"{dev}_device_count")
        assert (
            t.torch_version == facts["torch_version"]
            and t.python_version == facts["python_version"]
        )
        # test counts are the records' own, never re-read from text
        outcomes = [x.outcome for s in rec.full for x in s.tests]
        assert (t.counts["total"], t.counts["passed"]) == (len(outcomes), outcomes.count("passed"))
        if kind in TEXT_KINDS:
            if kind != "markdown-summary" or t.torch_version:
                assert t.torch_version in text
            sep = " 张 " if (kind == "comment" and lang == "zh") else " × "
            assert f"{t.device_count}{sep}{t.device_name or t.device_type}" in text, t.label
            assert f"{t.counts['passed']}/{t.counts['total']}" in text
            # hardware is named as evidence only when the probe saw a real device
            if rec.hardware and dev == "cpu":
                assert t.hardware_matches is False
                named = re.compile(
                    re.escape(rec.hardware) + r"(?![\u4e00-\u9fff\w])"
                )  # not a docs product name
                for line in text.splitlines():
                    if named.search(line) and kind != "markdown-summary":
                        assert "配置为" in line or "configured" in line, line
            if kind == "comment":
                assert (
                    f"{'#### ' + rec.hardware if t.hardware_matches else '#### ' + rec.env}" in text
                )
        for step in rec.trace:
            tr = step.result["trace"]
            (mt,) = [x for x in t.traces if x["test_file"] == step.test_file]
            assert (mt["status"], mt["total_ops"], mt["device_tensors_created"]) == (
                tr["status"],
                tr["total_ops"],
                tr["device_tensors_created"],
            )
            if (
                kind == "comment"
            ):  # each target's trace, as its log states it (TRACE_TOTAL_OPS, ...)
                said = (
                    f"{tr['total_ops']} 次算子调用，创建设备张量 {tr['device_tensors_created']} 个"
                    if lang == "zh"
                    else f"{tr['total_ops']} operator call(s), {tr['device_tensors_created']} device tensor(s) created"
                )
                assert said in text
    resolve = next((r.resolve for r in runs if r.resolve is not None), None)
    if kind == "comment" and resolve is not None and resolve.trace is not None:
        tr = resolve.trace
        if lang == "zh":
            assert (
                f"共分发 {tr.total_ops} 个 ATen 算子，创建设备张量 {tr.device_tensors_created} 个"
                in text
            )
        else:
            assert (
                f"dispatched {tr.total_ops} ATen op(s) and created {tr.device_tensors_created} device tensor(s)"
                in text
            )
    task = next((r.task for r in runs if r.task is not None), None)
    if kind in ("pr", "comment") and task is not None:
        refs = sorted({rec.ref for rec in records})
        if task.repo:
            for ref in refs:
                assert ref in text
            for path in {tf.path for rec in records for tf in rec.test_files}:
                assert path in text
        else:
            for made_up in (
                "目标分支 local",
                "目标分支：local",
                "targets local",
                "Target branch: local",
            ):
                assert made_up not in text  # no made-up target branch
            for rec in records:
                for tf in rec.test_files:
                    if tf.abs_path.startswith("/"):
                        assert tf.abs_path not in _prose(text), (
                            "a file on disk is not a changed file of a PR"
                        )
    for note in (n for rec in records for n in rec.notes):
        if kind == "pr":
            assert note.code != "text"
    official = next((r.upstream for r in runs if r.upstream is not None), None)
    if official is not None and kind in ("pr", "comment"):
        _official_holds(official, text, lang)


def _official_holds(rec: UpstreamRecord, text: str, lang: str) -> None:
    """Each official test, its result on each target as the record says it, and every stale key."""
    words = {
        "zh": {
            "passed": "通过",
            "failed": "未通过",
            "disabled": "已禁用",
            "skipped": "用例自身跳过",
            "not_started": "未启动",
        },
        "en": {
            "passed": "passed",
            "failed": "failed",
            "disabled": "disabled",
            "skipped": "skipped by the test",
            "not_started": "not started",
        },
    }[lang]
    for target in rec.targets:
        for t in target.tests:
            assert f"- `{t.test}`" in text
            lines = [ln for ln in text.splitlines() if ln.startswith(f"  - {target.label}")]
            assert any(words[t.status] in ln for ln in lines), (target.label, t.status)
        for e in target.stale:
            assert f"`{e.key}`" in text
            # a stale entry found on an emulated device is never called stale: it is no hardware evidence
            assert ("过期的禁用条目" in text or "Stale disabled entry" in text) is not bool(
                target.emulated
            )
        if target.error:
            assert f"`{target.error}`" in text


# -- one language per text -------------------------------------------------------------------
_CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef\u3000-\u303f]")
_EN_SENTENCE = re.compile(r"\b[A-Za-z][a-z]+(?:[ ,;:]+[a-z][a-z']*){2,}")


def _prose(text: str) -> str:
    """The text less quoted evidence: fences, code spans, links, HTML comments."""
    text = re.sub(r"(?ms)^(`{3,})[^\n]*\n.*?^\1\s*$", "", text)
    text = re.sub(r"(`+)(?:(?!\1).)+?\1", "", text)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    return re.sub(r"https?://\S+", "", text)


def _quoted_from_records(runs: list[RunRecords]) -> list[str]:
    """Names the records quote from elsewhere (docs pages' product names, PR fields as the user wrote)."""
    out = []
    for r in runs:
        if r.docs_check is not None:
            out += [p.name for v in r.docs_check.versions for p in (v.products or {}).values()]
            out += [p.status for v in r.docs_check.versions for p in (v.products or {}).values()]
        if r.task is not None:
            out += [
                x
                for x in (
                    r.task.task_title,
                    r.task.result_title,
                    r.task.upstream_note,
                    r.task.title,
                )
                if x
            ]
    return [x for x in out if x]


def _one_language(text: str, lang: str, runs: list[RunRecords]) -> None:
    prose = _prose(text)
    for quoted in sorted(_quoted_from_records(runs), key=len, reverse=True):
        prose = prose.replace(quoted, "")
    if lang == "en":
        bad = [ln for ln in prose.splitlines() if _CJK.search(ln)]
        assert bad == [], f"Chinese in an English text: {bad[:3]}"
    else:
        bad = [m.group(0) for m in _EN_SENTENCE.finditer(prose)]
        assert bad == [], f"English sentences in a Chinese text: {bad[:3]}"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_text_of_every_fixture_states_its_records(
    run_sets: dict[str, list[RunRecords]], lang: str
) -> None:
    for name, runs in run_sets.items():
        model = build_report(runs)
        for kind in KINDS:
            text = render(model, kind, lang)
            _facts_hold(model, runs, kind, lang, text)
            if kind in TEXT_KINDS:
                try:
                    _one_language(text, lang, runs)
                except AssertionError as exc:
                    raise AssertionError(f"{name} {kind} {lang}: {exc}") from None


def test_a_fact_the_records_do_not_hold_is_caught(run_sets: dict[str, list[RunRecords]]) -> None:
    """The checks above can fail: a text that states another op count or an English note is caught."""
    runs = run_sets["traced"]
    model = build_report(runs)
    text = render(model, "comment", "zh")
    forged = replace(
        model,
        targets=tuple(
            replace(t, counts=dict(t.counts, passed=t.counts["passed"] + 1)) for t in model.targets
        ),
    )
    with pytest.raises(AssertionError):
        _facts_hold(forged, runs, "comment", "zh", render(forged, "comment", "zh"))
    with pytest.raises(AssertionError):
        _one_language(text + "\nthe file was written into the worktree for this run\n", "zh", runs)
    with pytest.raises(AssertionError):
        _one_language(render(model, "comment", "en") + "\n说明：未提交\n", "en", runs)


# -- the same text anywhere --------------------------------------------------------------------
def _texts(store: Store, runs: list[int | str]) -> dict[str, str]:
    model = build_report([read_run(store, r) for r in runs])
    return {f"{k}.{lang}": render(model, k, lang) for k in KINDS for lang in ("zh", "en")}


def test_report_is_unchanged_when_another_verb_writes_the_store(tmp_path: Path) -> None:
    fx = build_fixture(tmp_path, with_records=True)
    before = _texts(fx.store, fx.runs)
    other_cov = ApiCoverage.from_json(
        dict(
            read_run(fx.store, fx.runs[0]).coverage.to_json(),  # type: ignore[union-attr]
            justification_zh="另一次检索",
        )
    )
    other_res = read_run(fx.store, fx.runs[0]).resolve
    assert other_res is not None
    keep(fx.store, "coverage", ["coverage", API], [(API, other_cov)])
    keep(fx.store, "resolve", ["resolve", API], [(API, ApiInfo.from_json(other_res.to_json()))])
    assert _texts(fx.store, fx.runs) == before


def test_a_bundle_round_trip_renders_byte_identical_texts(tmp_path: Path) -> None:
    fx = build_fixture(tmp_path, with_records=True)
    before = _texts(fx.store, fx.runs)
    bundle = tmp_path / "runs.zip"
    assert (
        main(
            [
                "bundle",
                "export",
                *map(str, fx.runs),
                "-o",
                str(bundle),
                "--store",
                str(fx.store.root),
            ]
        )
        == 0
    )
    other = tmp_path / "elsewhere"
    assert main(["bundle", "import", str(bundle), "--store", str(other)]) == 0
    imported = Store(other, create=False)
    ids = [r.id for r in sorted(imported.runs(), key=lambda r: r.id)]
    # the other store numbers the runs its own way (import once more: ids 3, 4), the texts stay the same
    assert main(["bundle", "import", str(bundle), "--store", str(other)]) == 0
    ids = [r.id for r in sorted(Store(other, create=False).runs(), key=lambda r: r.id)][-2:]
    assert ids == [3, 4]
    after = _texts(Store(other, create=False), ids)
    assert after == before


def test_an_emulated_only_run_is_a_dry_run_and_never_hardware(
    run_sets: dict[str, list[RunRecords]],
) -> None:
    runs = _variant(run_sets["full"], emulated=True)
    model = build_report(runs)
    assert model.conclusion["emulated_only"] is True
    assert all(t.hardware_matches is False for t in model.targets)


def test_run_info_is_what_names_a_run() -> None:
    info = RunInfo(
        uid="ab" * 16, id=7, kind="run", status="complete", result="PASS", created=1.0, finished=2.0
    )
    m = build_report([RunRecords(run=info)])
    assert m.runs[0]["uid"] == "ab" * 16 and "id" not in m.runs[0]


def test_official_tests_related_never_says_the_api_has_no_direct_test(
    run_sets: dict[str, list[RunRecords]],
) -> None:
    """The official tests' selection speaks of official tests: beside the backend's own direct tests
    (``直接用例数：2``) it never says the API has none."""
    checked = 0
    for runs in run_sets.values():
        model = build_report(runs)
        if not model.official or model.official.get("selection") != "related":
            continue
        for lang, none_said in (
            ("zh", "该 API 没有直接用例"),
            ("en", "no test uses the API directly"),
        ):
            for kind in ("pr", "comment"):
                text = render(model, kind, lang)
                assert none_said not in text, (kind, lang)
        checked += 1
    assert checked, "no fixture has related official tests"


def test_failing_official_tests_keep_the_conclusion_from_calling_the_api_consistent(
    run_sets: dict[str, list[RunRecords]],
) -> None:
    checked = 0
    for runs in run_sets.values():
        model = build_report(runs)
        if not model.official:
            continue
        # every target passed, the official tests did not
        model = replace(
            model,
            result="PASS",
            targets=tuple(replace(t, result="PASS") for t in model.targets),
            official=dict(model.official, result="FAIL"),
        )
        for lang, said, claim in (
            ("zh", "PyTorch 官方用例未通过", "证据支持"),
            ("en", "PyTorch's official tests failed", "the evidence supports"),
        ):
            text = render(model, "comment", lang)
            conclusion = text.split("### 结论" if lang == "zh" else "### Conclusion", 1)[1]
            assert claim not in conclusion
            if all(t.result == "PASS" for t in model.targets):
                assert said in conclusion
        checked += 1
    assert checked, "no fixture has failing official tests"
