"""Render the report model: Jinja2 templates for the texts, code for JSON and JUnit XML.

Templates receive ``m`` (the model as JSON, exactly what ``--kind json``
prints), ``lang`` and ``kind``. Lookup order for ``pr``/``comment``/
``markdown-summary``: ``--template FILE``; then, in a team's templates folder
(``[report] templates``), ``<name>_<lang>.md.j2`` and ``<name>.md.j2``; then the
same names among the built-in templates. Undefined names are errors, so a
template that reads a key the model lacks fails loudly instead of printing
nothing.

Every template renders in Jinja2's immutable sandbox: it reads the model and
calls the filters given to it, never Python's internals (``cycler.__init__.
__globals__``, ``__class__``, ``__subclasses__``) nor a method that changes a
value; a template that tries is refused (exit 2), and nothing of it runs. A
templates folder named by the backend repository's own ``torchparity.toml`` is
used only when the user asks for it (``--allow-repo-templates``, ``config``).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import jinja2
import jinja2.sandbox

from .. import textsafe
from ..config import Config
from ..errors import UsageError
from ..fsutil import read_text_file
from .junit import render_junit
from .model import ReportModel

KINDS = ("pr", "comment", "json", "junit", "markdown-summary")
LANGS = ("zh", "en")
_TEMPLATE_BASE = {"pr": "pr", "comment": "comment", "markdown-summary": "summary"}


def fence(text: str | None, info: str = "") -> str:
    """``text`` in a Markdown code fence longer than any backtick run inside it (controls escaped)."""
    return textsafe.md_fence(text, info)


def cell(value: Any) -> str:
    """A value safe inside a Markdown table cell."""
    text = textsafe.escape_controls("" if value is None else str(value))
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def md_text(value: Any) -> str:
    """Free text (a note) safe in Markdown: controls escaped, HTML markup shown, not obeyed."""
    text = textsafe.escape_controls("" if value is None else str(value))
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def excerpt(
    log: str | None, max_lines: int = textsafe.DEFAULT_OUTPUT_LINES, where: str = ""
) -> str:
    """At most ``max_lines`` lines of each section of an evidence log (the PR quotes, the store keeps)."""
    text = textsafe.excerpt(log or "", max_lines)
    if where:
        text = text.replace("the full log is in the store ...]", f"the full log: {where} ...]")
    return text


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
    """``[report] templates`` of the config, relative to the config file that names it (a backend
    repository's own config names none unless the user allowed it: ``config.load_config``)."""
    value = config.report.get("templates")
    if not value:
        return None
    folder = Path(str(value)).expanduser()
    if not folder.is_absolute():
        source = Path(config.source)
        folder = (source.parent if source.is_file() else Path.cwd()) / folder
    return folder


def config_output_lines(config: Config) -> int:
    """``[report] output_lines`` of the config: raw output lines quoted per log section (0: all)."""
    value = config.report.get("output_lines", textsafe.DEFAULT_OUTPUT_LINES)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UsageError(
            f"[report] output_lines = {value!r} in {config.source}: give a whole number of "
            f"lines >= 0 (0 quotes everything; default {textsafe.DEFAULT_OUTPUT_LINES})"
        )
    return value


def _environment(
    loader: jinja2.BaseLoader, output_lines: int = textsafe.DEFAULT_OUTPUT_LINES
) -> jinja2.Environment:
    # a template is code: whoever wrote it (a team, a repository's config) gets the sandbox, not Python
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        fence=fence, cell=cell, short=short, code=textsafe.md_code, md_text=md_text, excerpt=excerpt
    )
    env.globals.update(link=link, output_lines=output_lines)
    return env


@functools.lru_cache(maxsize=16)
def _shared_environment(templates_dir: str | None, output_lines: int) -> jinja2.Environment:
    """One environment per templates folder: templates compile once per process (Jinja2 reloads a
    file that changed on disk)."""
    return _environment(_loader(templates_dir), output_lines)


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
    output_lines: int = textsafe.DEFAULT_OUTPUT_LINES,
) -> str:
    """The text of one report kind.

    ``template`` is a Jinja2 file that replaces the built-in one; ``templates_dir``
    a team's folder searched first by name (``config_templates_dir(config)``);
    ``output_lines`` bounds the raw output quoted per log section (``[report] output_lines``).
    Control characters never reach the text: escaped in Markdown, ``\\uXXXX`` in JSON,
    visible escapes in JUnit XML (``textsafe``).
    """
    if kind not in KINDS:
        raise UsageError(f"unknown report kind {kind!r}; use one of {', '.join(KINDS)}")
    if lang not in LANGS:
        raise UsageError(f"unknown language {lang!r}; use one of {', '.join(LANGS)}")
    doc = model.to_json() if isinstance(model, ReportModel) else model
    if kind == "json":
        if template is not None:
            raise UsageError("--template applies to pr, comment and markdown-summary, not json")
        return textsafe.json_safe(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n"
    if kind == "junit":
        if template is not None:
            raise UsageError("--template applies to pr, comment and markdown-summary, not junit")
        return render_junit(doc)
    base = _TEMPLATE_BASE[kind]
    if template is not None:
        path = Path(template)
        if not path.is_file():
            raise UsageError(
                f"template file not found: {path}; pass an existing Jinja2 file to --template"
            )
        read_text_file(path, "--template")  # a binary or undecodable file is bad input, named
        env = _environment(jinja2.FileSystemLoader(str(path.parent.absolute())), output_lines)
        names = [path.name]
    else:
        env = _shared_environment(
            None if templates_dir is None else str(templates_dir), output_lines
        )
        names = [f"{base}_{lang}.md.j2", f"{base}.md.j2"]
    shown = names[0]
    try:
        chosen = env.select_template(names)
        shown = chosen.name or shown
        text = chosen.render(m=doc, lang=lang, kind=kind)
    except jinja2.TemplateNotFound as exc:
        raise UsageError(f"no template for {kind} ({', '.join(names)}): {exc}") from exc
    except jinja2.sandbox.SecurityError as exc:
        raise UsageError(
            f"template {shown}: {exc}; templates render in a sandbox that reads the report model only "
            "(no Python internals, no method that changes a value): refused, no text is written; fix the template"
        ) from exc
    except jinja2.TemplateSyntaxError as exc:
        raise UsageError(
            f"template {exc.filename or exc.name}:{exc.lineno}: {exc.message}; fix the template"
        ) from exc
    except jinja2.UndefinedError as exc:
        raise UsageError(
            f"template {shown}: {exc.message}; the report model has no such key "
            "(see 'torchparity report RUN --kind json' for the keys)"
        ) from exc
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"template {shown} is not UTF-8 text ({exc.reason} at byte {exc.start}); "
            "fix the template file"
        ) from exc
    # whatever a template interpolates, no control character reaches the Markdown
    return textsafe.escape_controls(tidy(text.replace("\r\n", "\n")))
