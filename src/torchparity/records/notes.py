"""Notes and blockers as data: a code and its arguments, worded by the renderer in one language.

A stage never writes a sentence into a record: it states ``Note("docs_missing",
{"api": ..., "versions": ...})`` and each text renders it from its own
language's phrasebook (``torchparity.phrases``), so a Chinese text never
carries an English sentence.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Note:
    code: str
    args: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, code: str, **args: object) -> Note:
        return cls(code, {k: str(v) for k, v in args.items()})


__all__ = ["Note"]
