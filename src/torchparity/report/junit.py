"""JUnit XML (the Ant/Jenkins dialect CI systems read): one testsuite per target, one testcase per test.

Beside the test methods each suite carries the checks torchparity adds: one
testcase per isolation probe, one for the state-leak check, and one for a
target that could not run its tests at all (so a broken environment is red in
CI, not an empty suite). The evidence log is the suite's ``system-out``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from ..textsafe import escape_controls

# characters XML 1.0 cannot carry, even escaped (control characters are escaped visibly before)
_ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _text(value: Any) -> str:
    return _ILLEGAL.sub("\ufffd", escape_controls("" if value is None else str(value)))


def _case(suite: ET.Element, classname: str, name: str) -> ET.Element:
    return ET.SubElement(suite, "testcase", {"classname": _text(classname), "name": _text(name)})


def _suite(t: dict[str, Any], api: str | None) -> tuple[ET.Element, dict[str, int]]:
    suite = ET.Element("testsuite", {"name": _text(t["label"])})
    props = ET.SubElement(suite, "properties")
    facts = [
        ("run", t["run_uid"]),
        ("api", api),
        ("ref", t["ref"]),
        ("commit", t["commit"]),
        ("env", t["env"]),
        ("hardware", t["hardware"]),
        ("python", t["python"]),
        ("python_version", t["python_version"]),
        ("torch_version", t["torch_version"]),
        ("backend_module", t["backend_module"]),
        ("backend_version", t["backend_version"]),
        ("device_type", t["device_type"]),
        ("device_name", t["device_name"]),
        ("device_count", t["device_count"]),
        ("mode", t["mode"]),
        ("result", t["result"]),
        ("log_sha256", t["log_sha256"]),
        ("record_sha256", t["record_sha256"]),
        ("emulated", t["device_type"] if t.get("emulated") else None),
    ]
    for key, value in facts:
        if value not in (None, ""):
            ET.SubElement(props, "property", {"name": key, "value": _text(value)})
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for r in t["tests"]:
        case = _case(suite, r["classname"], r["name"])
        counts["tests"] += 1
        outcome = r["outcome"]
        if outcome == "failed":
            counts["failures"] += 1
            el = ET.SubElement(
                case,
                "failure",
                {"message": _text(r["message"] or "failed"), "type": "AssertionError"},
            )
            el.text = _text(r["detail"])
        elif outcome == "error":
            counts["errors"] += 1
            el = ET.SubElement(
                case, "error", {"message": _text(r["message"] or "error"), "type": "Error"}
            )
            el.text = _text(r["detail"])
        elif outcome == "xpass":
            counts["failures"] += 1
            ET.SubElement(
                case, "failure", {"message": "unexpected success", "type": "UnexpectedSuccess"}
            )
        elif outcome in ("skipped", "xfail"):
            counts["skipped"] += 1
            ET.SubElement(
                case,
                "skipped",
                {"message": "expected failure" if outcome == "xfail" else "skipped"},
            )
    for a in t.get("api_tests") or ():
        if a["status"] not in ("disabled", "not_started"):
            continue  # those that ran are the runner's cases above
        # the API's tests that never ran: named, never silently absent
        case = _case(suite, "torchparity.api_tests", a["id"] or a["test"])
        counts["tests"] += 1
        counts["skipped"] += 1
        why = "disabled by the backend's list" if a["status"] == "disabled" else "never started"
        ET.SubElement(
            case, "skipped", {"message": _text(f"{why}: {a['detail']}" if a["detail"] else why)}
        )
    for iso in t["isolation"]:
        case = _case(suite, "torchparity.isolation", f"{iso['title']} ({iso['test_file']})")
        counts["tests"] += 1
        lines = [
            f"initial:{r.get('initial')},before:{r.get('before')},after:{r.get('after')},"
            f"tests_run:{r.get('tests_run')},successful:{r.get('successful')}"
            for r in iso["runs"]
        ]
        if iso["skipped"]:
            counts["skipped"] += 1
            ET.SubElement(case, "skipped", {"message": _text(iso["skipped"])})
        elif not iso["passed"]:
            counts["failures"] += 1
            el = ET.SubElement(
                case,
                "failure",
                {
                    "message": _text(
                        f"{iso['title']} isolation probe failed (status {iso['status']})"
                    ),
                    "type": "IsolationFailure",
                },
            )
            el.text = _text("\n".join(lines))
        else:
            ET.SubElement(case, "system-out").text = _text("\n".join(lines))
    if t["commands"]:
        case = _case(suite, "torchparity.state", "state leak check")
        counts["tests"] += 1
        if t["leaks"]:
            counts["failures"] += 1
            text = "\n".join(
                f"test:{x.get('test')},state:{x.get('state')},before:{x.get('before')},after:{x.get('after')}"
                for x in t["leaks"]
            )
            el = ET.SubElement(
                case,
                "failure",
                {"message": f"{len(t['leaks'])} state leak(s)", "type": "StateLeak"},
            )
            el.text = _text(text)
    if t["result"] in ("ERROR", "INCOMPLETE") or (
        t["result"] == "FAIL" and not t["tests"] and not t["isolation"]
    ):
        case = _case(suite, "torchparity.target", "collect")
        counts["tests"] += 1
        counts["errors"] += 1
        notes = (
            "; ".join(n["en"] for n in t["notes"])
            or f"the target finished {t['result']} without test results"
        )
        el = ET.SubElement(case, "error", {"message": _text(notes[:200]), "type": t["result"]})
        el.text = _text("\n".join(n["en"] for n in t["notes"]))
    if t["result"] in ("NONE_RAN", "MISMATCH"):
        # none of the API's tests ran there, or nothing ran at all: never a green suite
        case = _case(suite, "torchparity.target", "api_tests")
        counts["tests"] += 1
        kind = "error" if t["result"] == "MISMATCH" else "failure"
        counts["errors" if kind == "error" else "failures"] += 1
        notes = "; ".join(n["en"] for n in t["notes"]) or t["result"]
        el = ET.SubElement(case, kind, {"message": _text(notes[:200]), "type": t["result"]})
        el.text = _text("\n".join(n["en"] for n in t["notes"]))
    ET.SubElement(suite, "system-out").text = _text(t["log"])
    suite.set("tests", str(counts["tests"]))
    suite.set("failures", str(counts["failures"]))
    suite.set("errors", str(counts["errors"]))
    suite.set("skipped", str(counts["skipped"]))
    suite.set("time", f"{float(t.get('duration') or 0.0):.3f}")
    suite.set("hostname", _text(t["env"]))
    return suite, counts


def render_junit(doc: dict[str, Any]) -> str:
    """The report model (as JSON) as a JUnit XML document."""
    root = ET.Element("testsuites", {"name": _text(f"torchparity {doc.get('api') or ''}".strip())})
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    time = 0.0
    for t in doc["targets"]:
        suite, counts = _suite(t, doc.get("api"))
        root.append(suite)
        for k in totals:
            totals[k] += counts[k]
        time += float(t.get("duration") or 0.0)
    for k, v in totals.items():
        root.set(k, str(v))
    root.set("time", f"{time:.3f}")
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=False).join(
        ['<?xml version="1.0" encoding="UTF-8"?>\n', "\n"]
    )
