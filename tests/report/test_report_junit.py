"""JUnit XML validates against the Ant/Jenkins schema (junit.xsd) and says what failed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from xmlschema import XMLSchema, XMLSchemaValidationError

from tests.report.report_fixtures import Fixture, model_of, target_record
from torchparity.collect.evidence import render_log
from torchparity.records import Note
from torchparity.records.target import Step
from torchparity.report import build_report, render
from torchparity.store import Store, read_run

#: the Ant/Jenkins JUnit schema, the one most CI readers accept
SCHEMA = XMLSchema(str(Path(__file__).parent / "junit.xsd"))


def validate(xml: str) -> None:
    SCHEMA.validate(xml)


def test_junit_validates_with_a_suite_per_target(fixture_full: Fixture) -> None:
    xml = render(model_of(fixture_full), "junit")
    validate(xml)
    root = ET.fromstring(xml)
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["v2.7.1@a2", "v2.7.1@a3", "v2.7.1@a5"]
    a5 = suites[2]
    methods = [c for c in a5.findall("testcase") if c.get("classname", "").startswith("test.")]
    assert [c.get("name") for c in methods] == [
        "test_set_grad_enabled_clone",
        "test_set_grad_enabled_clone_decorator",
    ]
    failure = methods[1].find("failure")
    assert failure is not None and failure.get("message") == "AssertionError: True is not false"
    assert "self.assertFalse(double(x).requires_grad)" in (failure.text or "")
    iso = [c for c in a5.findall("testcase") if c.get("classname") == "torchparity.isolation"]
    assert iso[0].find("failure") is not None
    assert (a5.get("tests"), a5.get("failures"), a5.get("errors")) == ("4", "2", "0")
    assert root.get("failures") == "2" and root.get("tests") == "12"
    props = {p.get("name"): p.get("value") for p in a5.iter("property")}
    assert props["backend_module"] == "torch_npu" and props["backend_version"] == "2.7.1.post2"
    assert props["log_sha256"] == fixture_full.store.targets(2)[0].log_sha
    assert "FULL_TEST_EXIT_CODE=1" in (a5.find("system-out").text or "")


def test_a_target_that_could_not_run_is_an_error_case(tmp_path: Path) -> None:
    store = Store(tmp_path / "store")
    rid = store.new_run("run", ["run", "t.py"])
    rec = target_record("a2", "c" * 40, "s" * 64).replace(
        full=[],
        isolation=[],
        result="ERROR",
        probe=Step(
            name="probe", status="CRASH", exit_code=None, signal="SIGSEGV", output="boom\x00\x07"
        ),
        notes=[Note.of("probe_unfinished", status="CRASH")],
    )
    store.add_target(
        rid,
        label=rec.label,
        ref=rec.ref,
        env=rec.env,
        result=rec.result,
        log=render_log(rec).encode(),
        record=rec.to_json(),
    )
    xml = render(build_report([read_run(store, rid)]), "junit")
    validate(xml)  # the control characters of the output were replaced
    case = ET.fromstring(xml).find("testsuite/testcase")
    assert case is not None and case.get("name") == "collect"
    error = case.find("error")
    assert (
        error is not None
        and error.get("type") == "ERROR"
        and "probe did not finish" in error.get("message", "")
    )


@pytest.mark.parametrize(
    ("xml", "problem"),
    [
        (
            '<testsuites><testsuite name="s" tests="1"><testcase name="t"/></testsuite></testsuites>',
            "classname",
        ),
        ('<testsuites><testsuite name="s" tests="x"/></testsuites>', "nonNegativeInteger"),
        ('<testsuites><testsuite name="s" tests="1" colour="red"/></testsuites>', "colour"),
        (
            '<testsuites><testsuite name="s" tests="1"><system-out/><testcase name="t" classname="c"/>'
            "</testsuite></testsuites>",
            "unexpected element <testcase>",
        ),
        (
            '<testsuites><testsuite name="s" tests="1"><testcase name="t" classname="c"><failure/><error/>'
            "</testcase></testsuite></testsuites>",
            "unexpected element <error>",
        ),
        (
            '<testsuites><testsuite name="s" tests="1"><testcase name="t" classname="c"><failure><b/></failure>'
            "</testcase></testsuite></testsuites>",
            "simple content",
        ),
        ("<testsuite/>", "required attribute 'name'"),
        ("<report/>", "not declared"),
    ],
)
def test_the_validator_rejects_invalid_documents(xml: str, problem: str) -> None:
    with pytest.raises(XMLSchemaValidationError):
        validate(xml)
