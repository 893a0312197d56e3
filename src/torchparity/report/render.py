"""Render the report model: Jinja2 templates for the texts, code for JSON and JUnit XML.

Templates receive ``m`` (the model as JSON, exactly what ``--kind json``
prints), ``lang`` and ``kind``. Lookup order for ``pr``/``comment``/
``markdown-summary``: ``--template FILE``; then, in a team's templates folder
(``[report] templates``), ``<name>_<lang>.md.j2`` and ``<name>.md.j2``; then the
same names among the built-in templates. Undefined names are errors, so a
template that reads a key the model lacks fails loudly instead of printing
nothing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jinja2

from ..config import Config
from ..errors import UsageError
from .junit import render_junit
from .model import ReportModel

KINDS = ("pr", "comment", "json", "junit", "markdown-summary")
LANGS = ("zh", "en")
_TEMPLATE_BASE = {"pr": "pr", "comment": "comment", "markdown-summary": "summary"}


def fence(text: str | None, info: str = "") -> str:
    """``text`` in a Markdown code fence longer than any backtick run inside it."""
    body = (text or "").rstrip("\n")
    longest = max((len(m.group(0)) for m in re.finditer(r"`{3,}", body)), default=2)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{body}\n{ticks}"


def code(value: Any) -> str:
    """``value`` as quoted evidence: a Markdown code span no backtick inside it can close."""
    text = "" if value is None else str(value).replace("\n", " ")
    longest = max((len(m.group(0)) for m in re.finditer(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def cell(value: Any) -> str:
    """A value safe inside a Markdown table cell."""
    text = "" if value is None else str(value)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def short(value: Any, n: int = 12) -> str:
    return "" if value is None else str(value)[:n]


def link(url: str | None, title: str | None = None) -> str:
    if not url:
        return ""
    return f"[{title}]({url})" if title else str(url)


def tidy(text: str) -> str:
    """Trailing spaces off and blank-line runs folded to one, outside code fences only."""
    out: list[str] = []
    fence_ticks = ""
    blank = False
    for line in text.split("\n"):
        m = re.match(r"^(`{3,})", line)
        if fence_ticks:
            out.append(line)
            if m and line.strip() == fence_ticks:
                fence_ticks = ""
            continue
        if m:
            fence_ticks = m.group(1)
            out.append(line)
            blank = False
            continue
        line = line.rstrip()
        if not line:
            if blank or not out:
                continue
            blank = True
        else:
            blank = False
        out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


def config_templates_dir(config: Config) -> Path | None:
    """``[report] templates`` of the config, relative to the config file that names it."""
    value = config.report.get("templates")
    if not value:
        return None
    folder = Path(str(value)).expanduser()
    if not folder.is_absolute():
        source = Path(config.source)
        folder = (source.parent if source.is_file() else Path.cwd()) / folder
    return folder


def _environment(loader: jinja2.BaseLoader) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=loader, undefined=jinja2.StrictUndefined, autoescape=False,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
    )
    env.filters.update(fence=fence, cell=cell, short=short, code=code)
    env.globals.update(link=link)
    return env


def _loader(templates_dir: str | Path | None) -> jinja2.BaseLoader:
    loaders: list[jinja2.BaseLoader] = []
    if templates_dir is not None:
        folder = Path(templates_dir)
        if not folder.is_dir():
            raise UsageError(
                f"templates folder not found: {folder}; fix [report] templates in the config or create it"
            )
        loaders.append(jinja2.FileSystemLoader(str(folder)))
    loaders.append(jinja2.PackageLoader("torchparity.report", "templates"))
    return jinja2.ChoiceLoader(loaders)


def render(
    model: ReportModel | dict[str, Any],
    kind: str,
    lang: str = "zh",
    template: str | Path | None = None,
    templates_dir: str | Path | None = None,
) -> str:
    """The text of one report kind.

    ``template`` is a Jinja2 file that replaces the built-in one; ``templates_dir``
    a team's folder searched first by name (``config_templates_dir(config)``).
    """
    if kind not in KINDS:
        raise UsageError(f"unknown report kind {kind!r}; use one of {', '.join(KINDS)}")
    if lang not in LANGS:
        raise UsageError(f"unknown language {lang!r}; use one of {', '.join(LANGS)}")
    doc = model.to_json() if isinstance(model, ReportModel) else model
    if kind == "json":
        if template is not None:
            raise UsageError("--template applies to pr, comment and markdown-summary, not json")
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if kind == "junit":
        if template is not None:
            raise UsageError("--template applies to pr, comment and markdown-summary, not junit")
        return render_junit(doc)
    base = _TEMPLATE_BASE[kind]
    if template is not None:
        path = Path(template)
        if not path.is_file():
            raise UsageError(f"template file not found: {path}; pass an existing Jinja2 file to --template")
        env = _environment(jinja2.FileSystemLoader(str(path.parent.absolute())))
        names = [path.name]
    else:
        env = _environment(_loader(templates_dir))
        names = [f"{base}_{lang}.md.j2", f"{base}.md.j2"]
    try:
        text = env.select_template(names).render(m=doc, lang=lang, kind=kind)
    except jinja2.TemplateNotFound as exc:
        raise UsageError(f"no template for {kind} ({', '.join(names)}): {exc}") from exc
    except jinja2.TemplateSyntaxError as exc:
        raise UsageError(
            f"template {exc.filename or exc.name}:{exc.lineno}: {exc.message}; fix the template"
        ) from exc
    except jinja2.UndefinedError as exc:
        raise UsageError(
            f"template {names[0]}: {exc.message}; the report model has no such key "
            "(see 'torchparity report RUN --kind json' for the keys)"
        ) from exc
    return tidy(text)
