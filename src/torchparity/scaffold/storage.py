"""The ``storage`` family's plan: storage classes (construction, basic methods, device of results)."""

from __future__ import annotations

from ..api.records import ApiInfo
from .facts import Facts
from .plan import CannotDecide, Method, TestPlan, coverage_rows, spelling_of, stem_of
from .render import render


def storage_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    st = facts.get("storage") or {}
    if not st or st.get("problem"):
        raise CannotDecide(st.get("problem") or "no storage facts")
    spelling = spelling_of(r)
    stem = stem_of(r)
    untyped = bool(st.get("untyped"))
    if not untyped and not st.get("moved_ok"):
        raise CannotDecide(f"{spelling}.to(device=...) did not keep the values on the CPU")
    source = render(
        "storage.py.j2",
        test=f"test_{stem}",
        spelling=spelling,
        device=device,
        untyped=untyped,
        values=st.get("values", ""),
        dtype=st.get("dtype", ""),
    )
    what = "bytes" if untyped else f"{st.get('dtype')} elements"
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="storage",
        stem=stem,
        methods=(Method(f"test_{stem}", source),),
        summary=(
            f"construction ({what}), size, element size and values, fill/copy/clone, moving to "
            "the device and back, and the device of the results."
        ),
        coverage=coverage_rows(
            empty="长度为 0 以外的存储（构造长度、按值构造）",
            types="按长度构造、按值序列构造" if not untyped else "按长度构造（device 参数）",
            normal="size/nbytes/element_size、取值、设备迁移后值与设备正确",
        ),
        facts=facts,
    )
