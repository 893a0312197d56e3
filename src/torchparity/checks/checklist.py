"""The checklist engine: each item pass / fail / n.a. with its reason, over test files and a commit range.

Items read the files at the head of the range (or on disk without a range),
the commits of the range, and the run records (for restored state). Every
reason is given in English and Chinese; the report prints the one it needs.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import pyast
from ..config import Config, load_preset
from ..coverage.aliases import ATTR, AliasTable, Normalizer, table_for
from ..coverage.extract import decode_refs, extract
from ..coverage.index import FileIndex
from ..coverage.query import how
from ..coverage.spellings import assemble
from ..errors import UsageError
from ..gitrepo import blob_bytes, git, repo_root, resolve_commit
from ..records.checklist import FAIL, NA, PASS, Checklist, ChecklistItem
from ..records.target import Step, TargetRecord, record_from_json
from ..textsafe import md_code as q
from .pysource import Site, SourceFile

#: commit / PR title type tags accepted by default ([report] type_tags overrides)
DEFAULT_TYPE_TAGS = (
    "feat",
    "fix",
    "docs",
    "test",
    "refactor",
    "perf",
    "style",
    "chore",
    "build",
    "ci",
    "revert",
)

DEFAULT_TESTCASE_IMPORT = "from torch.testing._internal.common_utils import TestCase, run_tests"

#: (id, Chinese title, English title), in the order the checklist prints
ITEMS: tuple[tuple[str, str, str], ...] = (
    (
        "copyright",
        "文件包含规范 copyright 文件头",
        "The file starts with the project's copyright header",
    ),
    (
        "docstring_api",
        "模块 docstring 写明被测 API",
        "The module docstring names the API under test",
    ),
    ("calls_api", "测试代码显式调用目标 API", "The test calls the API explicitly"),
    ("no_noqa_import", "没有用 noqa 掩盖的未使用导入", "No unused import hidden by '# noqa'"),
    (
        "testcase",
        "使用项目测试基类和 run_tests，未直接导入 unittest",
        "The project's TestCase and run_tests are used; unittest is not imported directly",
    ),
    (
        "state_restored",
        "测试结束后全局状态恢复（隔离验证）",
        "Global state is restored after the tests (isolation probe)",
    ),
    ("single_commit", "仅一次提交", "A single commit"),
    ("only_target_files", "只修改目标文件", "Only the target files are changed"),
    ("type_tag", "提交/PR 标题使用类型标签", "Commit and PR titles carry a type tag"),
    (
        "hardware_evidence",
        "功能验证在真实设备上运行（不是仿真设备）",
        "The functional evidence comes from a real device, not an emulated one",
    ),
)
TITLES = {i: (zh, en) for i, zh, en in ITEMS}


def checklist_from_json(doc: dict[str, Any]) -> Checklist:
    """A stored checklist record back as a ``Checklist`` (titles filled in from the item ids)."""
    check = Checklist.from_json(doc)
    items = tuple(
        i
        if i.title_zh and i.title_en
        else ChecklistItem(
            i.id,
            i.title_zh or TITLES.get(i.id, ("", ""))[0] or i.id,
            i.title_en or TITLES.get(i.id, ("", ""))[1] or i.id,
            i.status,
            i.reason,
            i.reason_zh,
        )
        for i in check.items
    )
    return check.replace(items=items)


@dataclass
class _Result:
    status: str
    en: str
    zh: str


def _r(status: str, en: str, zh: str) -> _Result:
    return _Result(status, en, zh)


@dataclass
class _Context:
    config: Config
    repo: Path | None
    base: str | None
    head: str | None
    rev_range: str | None
    targets: list[str]
    records: list[TargetRecord]
    titles: list[str] = field(default_factory=list)


# -- items over the files -------------------------------------------------------------------
def _year_pattern() -> str:
    return r"\d{4}(?:\s*[-,]\s*\d{4})*"


def copyright_lines(template: str) -> list[re.Pattern[str]]:
    """One regex per line of the ``[scaffold] copyright`` template; ``{year}`` matches any year."""
    lines = template.strip("\n").splitlines()
    out = []
    for line in lines:
        pieces = [re.escape(p) for p in line.rstrip().split("{year}")]
        out.append(re.compile(r"[ \t]*" + _year_pattern().join(pieces) + r"[ \t]*\Z"))
    return out


def header_start(lines: Sequence[str]) -> int:
    """Where a file's copyright header starts: the index of its first line after a shebang / coding
    line and the blank lines after them (the header ``--into`` adds goes there too)."""
    i = 0
    if lines and lines[0].startswith("#!"):
        i = 1
    if i < len(lines) and re.match(r"#.*coding[:=]", lines[i]):
        i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i


def _header_lines(text: str) -> list[tuple[int, str]]:
    """The file's lines after a shebang / coding line and leading blank lines, numbered from 1."""
    lines = text.splitlines()
    return [(n + 1, lines[n]) for n in range(header_start(lines), len(lines))]


def check_copyright(src: SourceFile, template: str) -> _Result:
    if not template.strip():
        return _r(
            NA,
            "no [scaffold] copyright template in the config",
            "配置中没有 [scaffold] copyright 模板",
        )
    patterns = copyright_lines(template)
    lines = _header_lines(src.text)
    for k, pat in enumerate(patterns):
        if k >= len(lines):
            return _r(
                FAIL,
                f"{src.path}: the file ends before the copyright header is complete",
                f"{src.path}：文件在 copyright 文件头结束前就结束了",
            )
        number, line = lines[k]
        if not pat.match(line):
            expected = template.strip("\n").splitlines()[k].strip()
            return _r(
                FAIL,
                f"{src.path}:{number}: expected the copyright line {expected!r}, found {line.strip()!r}",
                f"{src.path}:{number}：应为 copyright 行 {expected!r}，实际为 {line.strip()!r}",
            )
    first = lines[0][1] if lines else ""
    year = re.search(r"\d{4}", first)
    when = f" (year {year.group(0)})" if year else ""
    return _r(
        PASS,
        f"{src.path}: starts with the configured copyright header{when}",
        f"{src.path}：文件头为配置的 copyright" + (f"（年份 {year.group(0)}）" if year else ""),
    )


# -- names: coverage's alias table, the resolve record's spellings on top ------------------------
def resolve_aliases(resolve: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The other spellings of the API a ``resolve`` record names: its query and its aliases."""
    if not resolve:
        return ()
    names = [resolve.get("query"), *(resolve.get("aliases") or [])]
    return tuple(dict.fromkeys(a for a in names if isinstance(a, str) and a))


def alias_table(
    api: str | None,
    aliases: Iterable[str] = (),
    canonical: str | None = None,
    *,
    config: Config | None = None,
    repo: Path | None = None,
) -> AliasTable:
    """Coverage's spellings of ``api`` (``coverage.spellings.assemble``: the static table, the config's
    [backend_aliases], the docs' NPU 形式名称), with ``api`` and ``aliases`` (its other spellings)
    naming ``canonical`` (the resolve record's; by default the static table's spelling of ``api``)."""
    static = table_for(None)
    if not api:
        return static
    target = canonical or static.canonical(api)[0]
    over = {a: target for a in (api, *aliases) if a and a != target}
    learnt = AliasTable.from_mappings(over, source="resolve") if over else None
    return assemble([api], config or load_preset("default"), repo=repo, learnt=learnt).table


def _names_api(api: str, table: AliasTable, text: str) -> bool:
    want = table.canonical(api)[0]
    return any(table.canonical(n.rstrip("."))[0] == want for n in SourceFile.dotted_names(text))


def check_docstring(src: SourceFile, api: str | None, aliases: AliasTable) -> _Result:
    if api is None:
        return _r(NA, "no API given (--api)", "未给出 API（--api）")
    if src.tree is None:
        return _r(
            FAIL,
            f"{src.path} does not parse ({src.error})",
            f"{src.path} 无法解析（{q(src.error)}）",
        )
    doc = src.docstring()
    if doc is None:
        return _r(
            FAIL,
            f"{src.path} has no module docstring; add one that names {api}",
            f"{src.path} 没有模块 docstring；请添加并写明 {api}",
        )
    if not _names_api(api, aliases, doc):
        return _r(
            FAIL,
            f"the module docstring of {src.path} does not name {api}",
            f"{src.path} 的模块 docstring 未写明 {api}",
        )
    return _r(
        PASS,
        f"the module docstring of {src.path} names {api}",
        f"{src.path} 的模块 docstring 写明了 {api}",
    )


def api_uses(
    src: SourceFile, name: str, table: AliasTable
) -> tuple[list[tuple[Site, str]], list[Site]]:
    """Where the file uses the canonical ``name``, from coverage's facts of the file.

    First, one (site, how) per test that uses it directly (in the test, in a
    helper or fixture it calls; a class merely named, as in ``isinstance``, is
    not a use), in line order. Second, when no test does, the uses in
    functions no test reaches. Module-level code is not in the facts.
    """
    facts = extract(src.text.encode("utf-8"))
    if facts.get("err"):
        return [], []
    normalizer = Normalizer(table)
    index = FileIndex(facts, normalizer)
    leaf = name.rsplit(".", 1)[-1]
    names_a_class = table.is_class(name)
    tests: list[tuple[Site, str]] = []
    for ti, use in sorted((index.uses.get(name) or {}).items()):
        if names_a_class and use[0] == ATTR:
            continue
        tests.append((Site(use[4], src.code_at(use[4], leaf), index.tests[ti][0]), how(use)))
    outside: list[Site] = []
    if not tests:
        for func in facts["f"]:
            if func[3]:
                continue
            for chain, kind, line, _ in decode_refs(facts, func):
                if any(
                    e[0] == name and not (names_a_class and e[1] == ATTR)
                    for e in normalizer.flat(chain, kind)
                ):
                    outside.append(Site(line, src.code_at(line, leaf), func[0]))
                    break
        outside.sort(key=lambda s: s.line)
    return tests, outside


def failing_tests(tree: ast.AST) -> set[str]:
    """``Class.test`` (or ``test``) of each test whose body fails unconditionally (``self.fail(...)``
    as one of its own statements): a placeholder, which calls nothing however it names the API."""
    out: set[str] = set()

    def fails(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        for stmt in fn.body:
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr == "fail"
                and isinstance(call.func.value, ast.Name)
                and call.func.value.id == "self"
            ):
                return True
        return False

    for node in getattr(tree, "body", []):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and fails(item):
                    out.add(f"{node.name}.{item.name}")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and fails(node):
            out.add(node.name)
    return out


def check_calls(src: SourceFile, api: str | None, aliases: AliasTable) -> _Result:
    if api is None:
        return _r(NA, "no API given (--api)", "未给出 API（--api）")
    if src.tree is None:
        return _r(
            FAIL,
            f"{src.path} does not parse ({src.error})",
            f"{src.path} 无法解析（{q(src.error)}）",
        )
    want = aliases.canonical(api)[0]
    in_tests, outside = api_uses(src, want, aliases)
    loose = False
    if not in_tests and not outside and want.startswith("torch.Tensor."):
        # a Tensor member on a receiver coverage cannot follow (a parameter, a loop variable):
        # method calls, or reads when it is a property such as Tensor.ndim
        sites = src.member_uses(want.rsplit(".", 1)[1])
        in_tests = [(s, "") for s in sites if s.in_test]
        outside = [s for s in sites if not s.in_test]
        loose = True
    placeholders = failing_tests(src.tree)
    in_tests = [(s, h) for s, h in in_tests if s.function not in placeholders]
    if placeholders and not in_tests and not outside:
        name = sorted(placeholders)[0]
        return _r(
            FAIL,
            f"{src.path}: {name} only names {api} and fails on purpose (a placeholder to fill in)",
            f"{src.path}：{name} 只是提及 {api} 并故意失败（待补充的占位测试）",
        )
    if in_tests:
        s, how_text = in_tests[0]
        more = f" (and {len(in_tests) - 1} more)" if len(in_tests) > 1 else ""
        more_zh = f"（另有 {len(in_tests) - 1} 处）" if len(in_tests) > 1 else ""
        via = via_zh = ""
        if "via helper" in how_text or "via fixture" in how_text:
            via, via_zh = f" ({how_text})", f"（{q(how_text)}）"
        note, note_zh = (
            ("; receiver type not checked", "；未检查调用对象类型") if loose else ("", "")
        )
        return _r(
            PASS,
            f"{src.path}:{s.line} in {s.function}: {s.code}{via}{more}{note}",
            f"{src.path}:{s.line}（{q(s.function)}）：{q(s.code)}{via_zh}{more_zh}{note_zh}",
        )
    if outside:
        s = outside[0]
        return _r(
            FAIL,
            f"{src.path}:{s.line}: {api} is called only outside test methods ({s.code})",
            f"{src.path}:{s.line}：{q(api)} 只在测试方法之外调用（{q(s.code)}）",
        )
    return _r(
        FAIL,
        f"{src.path}: no call of {api} (or an alias of it) in the tests",
        f"{src.path}：测试中没有显式调用 {api}（或其别名）",
    )


def check_noqa(src: SourceFile) -> _Result:
    if src.tree is None:
        return _r(
            FAIL,
            f"{src.path} does not parse ({src.error})",
            f"{src.path} 无法解析（{q(src.error)}）",
        )
    bad = [n for n in src.noqa_imports() if not n.used]
    if bad:
        n = bad[0]
        return _r(
            FAIL,
            f"{src.path}:{n.line}: {n.code!r} imports {', '.join(n.names)} without using it; "
            "remove it (the project's test imports already load the backend)",
            f"{src.path}:{n.line}：{n.code!r} 导入了 {', '.join(n.names)} 但未使用，请删除",
        )
    kept = src.noqa_imports()
    if kept:
        return _r(
            PASS,
            f"{src.path}: the '# noqa' imports are used ({', '.join(k.names[0] for k in kept)})",
            f"{src.path}：带 noqa 的导入均被使用",
        )
    return _r(PASS, f"{src.path}: no import is kept by '# noqa'", f"{src.path}：没有带 noqa 的导入")


def _testcase_names(config: Config) -> tuple[str, str, str]:
    """(module, qualified TestCase, qualified run_tests) from ``[scaffold] testcase_import``."""
    line = str(config.scaffold.get("testcase_import") or DEFAULT_TESTCASE_IMPORT)
    try:
        node = pyast.parse_module(line).body[0]
    except (SyntaxError, IndexError):
        raise UsageError(
            f"[scaffold] testcase_import in {config.source} is not an import statement: {line!r}; "
            "write e.g. 'from pkg.testing import TestCase, run_tests'"
        ) from None
    if not isinstance(node, ast.ImportFrom) or not node.module:
        raise UsageError(
            f"[scaffold] testcase_import in {config.source} must be 'from MODULE import TestCase, run_tests', "
            f"got {line!r}"
        )
    return node.module, f"{node.module}.TestCase", f"{node.module}.run_tests"


def check_testcase(ctx: _Context, src: SourceFile) -> _Result:
    if src.tree is None:
        return _r(
            FAIL,
            f"{src.path} does not parse ({src.error})",
            f"{src.path} 无法解析（{q(src.error)}）",
        )
    module, testcase, run_tests = _testcase_names(ctx.config)
    problems_en: list[str] = []
    problems_zh: list[str] = []
    for line, mod in src.imported_modules():
        top = mod.split(".")
        if top[0] == "unittest" and not (len(top) > 1 and top[1] == "mock"):
            problems_en.append(
                f"line {line} imports {mod.rsplit('.', 1)[0] if len(top) > 1 else mod} directly"
            )
            problems_zh.append(f"第 {line} 行直接导入了 unittest")
            break
    classes = src.class_bases()
    ours = [c for c in classes if testcase in c[2]]
    foreign = [c for c in classes if any(b.endswith("TestCase") and b != testcase for b in c[2])]
    if foreign:
        name, line, bases = foreign[0]
        base = next(b for b in bases if b.endswith("TestCase") and b != testcase)
        problems_en.append(f"class {name} (line {line}) derives from {base}, not {testcase}")
        problems_zh.append(f"第 {line} 行的类 {name} 继承 {base}，而不是 {testcase}")
    if not ours and not foreign:
        problems_en.append(f"no class derives from {testcase}")
        problems_zh.append(f"没有继承 {testcase} 的测试类")
    runs = src.calls_to(run_tests)
    if not runs:
        problems_en.append(f"{run_tests}() is never called")
        problems_zh.append(f"未调用 {run_tests}()")
    if problems_en:
        return _r(
            FAIL, f"{src.path}: " + "; ".join(problems_en), f"{src.path}：" + "；".join(problems_zh)
        )
    return _r(
        PASS,
        f"{src.path}: {', '.join(c[0] for c in ours)} derive(s) from {testcase}; "
        f"run_tests() at line {runs[0].line}; unittest not imported",
        f"{src.path}：{', '.join(c[0] for c in ours)} 继承 {module}.TestCase，"
        f"第 {runs[0].line} 行调用 run_tests()，未导入 unittest",
    )


# -- items over the runs and the commits -------------------------------------------------------
def _probe_ran(step: Step) -> bool:
    """An isolation probe ran when it was not skipped and at least one of its runs ran a test."""
    r = step.result or {}
    return not r.get("skipped") and any((x.get("tests_run") or 0) > 0 for x in r.get("runs") or [])


def check_state(ctx: _Context) -> _Result:
    """Pass only on evidence: at least one isolation probe ran tests, every probe passed, no leak.

    A probe that did not run (none asked for, skipped, the file ran no test) is not a pass: the
    item is n.a. with the reason, and the leak check's own verdict is said alongside."""
    if not ctx.records:
        return _r(NA, "no run records given (--run RUN)", "未提供运行记录（--run RUN）")
    isolation = [(r, s) for r in ctx.records for s in r.isolation]
    leaks = [(r, leak) for r in ctx.records for leak in r.leaks]
    failed = [(r, s) for r, s in isolation if not (s.ok and s.result.get("passed"))]
    if failed:
        r, s = failed[0]
        runs = s.result.get("runs") or []
        bad = next(
            (x for x in runs if x.get("before") != x.get("after") or not x.get("successful")), None
        )
        what = (
            (
                f"initial:{bad.get('initial')},before:{bad.get('before')},after:{bad.get('after')},"
                f"successful:{bad.get('successful')}"
            )
            if bad
            else (s.result.get("error") or f"status {s.status}")
        )
        title = s.result.get("title", s.name)
        return _r(
            FAIL,
            f"{r.label}: {title} isolation probe failed ({what})",
            f"{r.label}：{title} 隔离验证未通过（{q(what)}）",
        )
    if leaks:
        r, leak = leaks[0]
        return _r(
            FAIL,
            f"{r.label}: {leak.get('test')} leaves {leak.get('state')} changed "
            f"({leak.get('before')} -> {leak.get('after')})",
            f"{r.label}：{q(leak.get('test'))} 结束后 {leak.get('state')} 未恢复"
            f"（{leak.get('before')} -> {leak.get('after')}）",
        )
    ran = [(r, s) for r, s in isolation if _probe_ran(s)]
    if ran:
        titles = sorted({str(s.result.get("title", s.name)) for _, s in ran})
        n = sum(len(s.result.get("runs") or []) for _, s in ran)
        targets = len({r.label for r, _ in ran})
        return _r(
            PASS,
            f"{', '.join(titles)} isolation probe passed in {targets} target(s), "
            f"{n} starting value(s); no state leak",
            f"{'、'.join(titles)} 隔离验证在 {targets} 个目标、{n} 个初始值下通过，无状态泄漏",
        )
    if isolation:
        skipped = sorted(
            {str(s.result.get("skipped")) for _, s in isolation if s.result.get("skipped")}
        )
        why = f" (skipped: {'; '.join(skipped)})" if skipped else " (no test ran)"
        why_zh = f"（跳过：{'；'.join(q(x) for x in skipped)}）" if skipped else "（没有测试运行）"
        en, zh = f"no isolation probe ran{why}", f"隔离验证未运行{why_zh}"
    else:
        en, zh = "no isolation probe was run", "未运行隔离验证"
    verdicts = [(r, r.leak_verdict()) for r in ctx.records if r.full]
    if not verdicts:
        return _r(NA, f"{en}; the run records hold no test run", f"{zh}；运行记录中没有测试运行")
    watched = sum(v[2] for _, v in verdicts)
    unchecked = [(r, v) for r, v in verdicts if v[0] != "PASS"]
    if not unchecked:
        return _r(
            NA,
            f"{en}; the state-leak check watched {watched} test(s) and found no leak",
            f"{zh}；状态泄漏检查覆盖 {watched} 个测试，未发现泄漏",
        )
    r, (status, reason, _) = unchecked[0]
    return _r(
        NA,
        f"{en}; the state-leak check is {status} ({r.label}: {reason})",
        f"{zh}；状态泄漏检查结果为 {status}（{r.label}：{q(reason)}）",
    )


def check_hardware(ctx: _Context) -> _Result:
    """Emulated runs (an NPU emulated on CPU) are a dry run: they never count as hardware evidence."""
    if not ctx.records:
        return _r(NA, "no run records given (--run RUN)", "未提供运行记录（--run RUN）")
    emulated = [r.label for r in ctx.records if r.emulated]
    real = [r for r in ctx.records if not r.emulated]
    if not real:
        return _r(
            FAIL,
            f"every run is emulated on CPU ({', '.join(emulated)}): a dry run; replace it by "
            "evidence from hardware",
            f"全部运行均为 CPU 上的仿真（{'、'.join(emulated)}）：这是试运行，"
            "须替换为真实硬件上的证据",
        )
    devices = ", ".join(sorted({r.device for r in real}))
    en = f"{len(real)} target(s) ran on a real device ({devices})"
    zh = f"{len(real)} 个目标在真实设备（{devices}）上运行"
    if emulated:
        en += f"; emulated target(s) not counted: {', '.join(emulated)}"
        zh += f"；仿真目标不计入：{'、'.join(emulated)}"
    return _r(PASS, en, zh)


def check_single_commit(ctx: _Context) -> _Result:
    if ctx.repo is None or ctx.base is None:
        return _r(
            NA, "no commit range given (--repo and --range)", "未给出提交范围（--repo 与 --range）"
        )
    commits = _commits(ctx)
    if len(commits) == 1:
        return _r(
            PASS,
            f"{ctx.rev_range} holds one commit: {commits[0][0][:12]} {commits[0][1]}",
            f"{ctx.rev_range} 只有一个提交：{commits[0][0][:12]} {q(commits[0][1])}",
        )
    if not commits:
        return _r(FAIL, f"{ctx.rev_range} holds no commit", f"{ctx.rev_range} 中没有提交")
    listed = ", ".join(f"{c[:12]} {t!r}" for c, t in commits[:5])
    listed_zh = "、".join(f"{c[:12]} {q(t)}" for c, t in commits[:5])
    return _r(
        FAIL,
        f"{ctx.rev_range} holds {len(commits)} commits ({listed}); squash them into one",
        f"{ctx.rev_range} 有 {len(commits)} 个提交（{listed_zh}），请合并为一个",
    )


def changed_files(repo: Path, base: str, head: str) -> list[tuple[str, str]]:
    """(status letter, path) of every file the range changes, from the merge base to head."""
    res = git(repo, "diff", "--name-status", "--no-renames", f"{base}...{head}")
    out = []
    for line in res.text.splitlines():
        if "\t" in line:
            status, path = line.split("\t", 1)
            out.append((status[:1], path))
    return out


def check_only_targets(ctx: _Context) -> _Result:
    if ctx.repo is None or ctx.base is None or ctx.head is None:
        return _r(
            NA, "no commit range given (--repo and --range)", "未给出提交范围（--repo 与 --range）"
        )
    changed = [p for _, p in changed_files(ctx.repo, ctx.base, ctx.head)]
    if not changed:
        return _r(FAIL, f"{ctx.rev_range} changes no file", f"{ctx.rev_range} 未修改任何文件")
    extra = [p for p in changed if p not in ctx.targets]
    if extra:
        more = f" (and {len(extra) - 3} more)" if len(extra) > 3 else ""
        return _r(
            FAIL,
            f"{ctx.rev_range} also changes {', '.join(extra[:3])}{more}",
            f"{ctx.rev_range} 还修改了 {'、'.join(extra[:3])}"
            + (f"（另有 {len(extra) - 3} 个）" if len(extra) > 3 else ""),
        )
    untouched = [t for t in ctx.targets if t not in changed]
    note = f"; {', '.join(untouched)} unchanged" if untouched else ""
    note_zh = f"；{'、'.join(untouched)} 未修改" if untouched else ""
    return _r(
        PASS,
        f"{ctx.rev_range} changes only {', '.join(changed)}{note}",
        f"{ctx.rev_range} 只修改了 {'、'.join(changed)}{note_zh}",
    )


#: a title's leading bracketed prefixes, as the backend's merged titles write them: ``[v2.7.1]``,
#: ``[master]``, ``[test]``, ``【API一致性任务】``
_PREFIX = re.compile(r"^\s*(?:\[([^\]]*)\]|【([^】]*)】)\s*")


def _type_tag_re(tags: Sequence[str]) -> re.Pattern[str]:
    return re.compile(
        r"^(?:" + "|".join(re.escape(t) for t in tags) + r")(?:\([^)]*\))?!?\s*[:：]\s*\S"
    )


def has_type_tag(title: str, tags: Sequence[str]) -> bool:
    """The title carries a type tag, in the forms the backend merges: ``test: x``, ``[v2.7.1] test: x``,
    ``[v2.7.1]test: x``, ``【API一致性任务】test: x``, ``[test][v2.7.1] add x``, ``[fix] fix x``."""
    rest, bracketed = title, []
    while (m := _PREFIX.match(rest)) is not None:
        bracketed.append((m.group(1) or m.group(2) or "").strip().lower())
        rest = rest[m.end() :]
    if any(b in tags for b in bracketed) and rest.strip():
        return True
    return _type_tag_re(tags).match(rest) is not None


def check_type_tag(ctx: _Context) -> _Result:
    # (what, in English, in Chinese, the title)
    titles = (
        [("commit " + c[:12], "提交 " + c[:12], t) for c, t in _commits(ctx)]
        if ctx.repo is not None and ctx.base
        else []
    )
    titles += [("PR title", "PR 标题", t) for t in ctx.titles]
    if not titles:
        if ctx.base is not None:
            return _r(
                NA,
                f"{ctx.rev_range} holds no commit and no PR title (--title) is given",
                f"{ctx.rev_range} 中没有提交，且未给出 PR 标题（--title）",
            )
        return _r(
            NA,
            "no commit range (--range) and no PR title (--title) given",
            "未给出提交范围或 PR 标题",
        )
    tags = tuple(ctx.config.report.get("type_tags") or DEFAULT_TYPE_TAGS)
    bad = [x for x in titles if not has_type_tag(x[2], tags)]
    if bad:
        w, w_zh, t = bad[0]
        return _r(
            FAIL,
            f"{w}: {t!r} does not start with a type tag ({', '.join(t + ':' for t in tags[:5])} ...)",
            f"{w_zh}：{q(t)} 未以类型标签开头（如 {'、'.join(t + ':' for t in tags[:5])}）",
        )
    return _r(
        PASS,
        "; ".join(f"{w}: {t!r}" for w, _, t in titles[:3]),
        "；".join(f"{w_zh}：{q(t)}" for _, w_zh, t in titles[:3]),
    )


def _commits(ctx: _Context) -> list[tuple[str, str]]:
    assert ctx.repo is not None
    res = git(ctx.repo, "log", "--format=%H%x09%s", f"{ctx.base}..{ctx.head}")
    return [tuple(line.split("\t", 1)) for line in res.text.splitlines() if "\t" in line]  # type: ignore[misc]


# -- the engine ------------------------------------------------------------------------------
def split_range(rev_range: str) -> tuple[str, str]:
    if "..." in rev_range:
        base, head = rev_range.split("...", 1)
    elif ".." in rev_range:
        base, head = rev_range.split("..", 1)
    else:
        raise UsageError(
            f"--range {rev_range!r} is not a range; write BASE..HEAD (e.g. origin/master..HEAD)"
        )
    return base or "HEAD", head or "HEAD"


def _records(run_records: Iterable[TargetRecord | dict[str, Any]] | None) -> list[TargetRecord]:
    out = []
    for r in run_records or ():
        out.append(r if isinstance(r, TargetRecord) else record_from_json(r))
    return out


def _per_file(sources: list[SourceFile], check: Callable[[SourceFile], _Result]) -> _Result:
    results = [check(s) for s in sources]
    if not results:
        return _r(NA, "no test file given", "未给出测试文件")
    for status in (FAIL, PASS):
        hits = [r for r in results if r.status == status]
        if hits:
            return _r(status, "; ".join(r.en for r in hits), "；".join(r.zh for r in hits))
    return results[0]


def evaluate_checklist(
    repo: str | Path | None,
    rev_range: str | None,
    files: Sequence[str],
    api: str | None = None,
    config: Config | None = None,
    run_records: Iterable[TargetRecord | dict[str, Any]] | None = None,
    *,
    title: str | None = None,
    aliases: Iterable[str] = (),
    resolve: Mapping[str, Any] | None = None,
    shown_as: Sequence[str] = (),
) -> Checklist:
    """Evaluate every item; ``aliases`` are other spellings of ``api``; ``resolve`` is its resolve
    record (``find_resolve``): its query and aliases count as the API, its canonical name is the one matched.
    ``shown_as``: the path each file is named by in the record and its reasons, when it is read from
    elsewhere (a scaffolded test read from its copy is named by its path in the repo)."""
    config = config or load_preset("default")
    root = repo_root(repo) if repo is not None else None
    table = alias_table(
        api,
        [*aliases, *resolve_aliases(resolve)],
        (resolve or {}).get("canonical"),
        config=config,
        repo=root,
    )
    base = head = None
    if rev_range is not None:
        if root is None:
            raise UsageError("--range needs --repo: the commits are read from a git repository")
        b, h = split_range(rev_range)
        base, head = resolve_commit(root, b), resolve_commit(root, h)
    if not files:
        raise UsageError("no test file given; pass --file PATH (repeatable)")
    sources: list[SourceFile] = []
    targets: list[str] = []
    for k, f in enumerate(files):
        rel = _relative(root, f)
        targets.append(shown_as[k] if k < len(shown_as) else rel)
        if root is not None and head is not None:
            data = blob_bytes(root, head, rel)
            if data is None:
                raise UsageError(
                    f"file {rel} does not exist at {head[:12]} in {root}; pass a path relative to the repo root"
                )
        else:
            path = (root / rel) if root is not None else Path(f)
            if not path.is_file():
                raise UsageError(f"file not found: {path}; pass an existing test file to --file")
            data = path.read_bytes()
        sources.append(SourceFile(targets[-1], data.decode("utf-8", "replace")))
    ctx = _Context(
        config=config,
        repo=root,
        base=base,
        head=head,
        rev_range=rev_range,
        targets=targets,
        records=_records(run_records),
        titles=[title] if title else [],
    )
    template = str(config.scaffold.get("copyright") or "")
    results: dict[str, _Result] = {
        "copyright": _per_file(sources, lambda s: check_copyright(s, template)),
        "docstring_api": _per_file(sources, lambda s: check_docstring(s, api, table)),
        "calls_api": _per_file(sources, lambda s: check_calls(s, api, table)),
        "no_noqa_import": _per_file(sources, check_noqa),
        "testcase": _per_file(sources, lambda s: check_testcase(ctx, s)),
        "state_restored": check_state(ctx),
        "single_commit": check_single_commit(ctx),
        "only_target_files": check_only_targets(ctx),
        "type_tag": check_type_tag(ctx),
        "hardware_evidence": check_hardware(ctx),
    }
    items = tuple(
        ChecklistItem(i, zh, en, results[i].status, results[i].en, results[i].zh)
        for i, zh, en in ITEMS
    )
    return Checklist(
        items,
        api=api,
        repo=str(root) if root else None,
        range=rev_range,
        files=tuple(targets),
        head=head,
    )


def _relative(root: Path | None, f: str) -> str:
    p = Path(f)
    if root is not None and p.is_absolute():
        try:
            return p.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            raise UsageError(f"file {f} is not inside the repository {root}") from None
    return p.as_posix()
