"""Scaffolding real APIs and running what was written: the helpers the scaffold tests of real APIs share.

``_scaffold`` resolves the APIs, measures their facts in one agent session and writes a test for each;
``_check_families`` asserts each went to its case's family; ``_passes_and_fails_once_broken`` runs each
written file as it is (it passes) and under its case's break (it fails).
"""

from __future__ import annotations

import sys

from tests.scaffold.conftest import run_files


def _scaffold(cases, names, out, backend="", device="cpu", environ=None, preset="default"):
    from torchparity.api import agent_session, resolve_api
    from torchparity.config import load_preset
    from torchparity.scaffold import scaffold_facts_many, scaffold_test

    with agent_session(sys.executable, backend, device, environ=environ) as session:
        infos = resolve_api(names, sys.executable, backend, device, trace=False, session=session)
        facts = scaffold_facts_many(infos[: len(cases)], session, backend_module=backend)
    results = {}
    for n, (case, info, f) in enumerate(zip(cases, infos[: len(cases)], facts, strict=True)):
        results[case.api] = scaffold_test(
            info,
            load_preset(preset),
            python=sys.executable,
            device=device,
            backend_module=backend,
            out_dir=out / f"{n:02d}",
            facts=f,
        )
    return results, {name: info for name, info in zip(names, infos, strict=True)}


def _check_families(cases, results):
    wrong = [
        (c.api, results[c.api].family, results[c.api].fill_in[:1])
        for c in cases
        if results[c.api].family != c.family
    ]
    assert not wrong, wrong


def _passes_and_fails_once_broken(cases, results, tmp_path, environ=None):
    jobs = [{"file": results[c.api].path, "patch": ""} for c in cases]
    jobs += [{"file": results[c.api].path, "patch": c.breakage} for c in cases]
    out = run_files(jobs, tmp_path, environ)
    for case, res in zip(cases, out[: len(cases)], strict=True):
        assert res["exit_code"] == 0 and res["summary"] == "OK", (case.api, res["output"])
    for case, res in zip(cases, out[len(cases) :], strict=True):
        assert res["exit_code"] != 0 and res["summary"].startswith("FAILED ("), (
            case.api,
            res["output"],
        )
