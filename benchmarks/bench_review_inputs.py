"""Review a 10 MB PR text and report the time: linear patterns, bounded lines, repeated claims checked once.

    PYTHONPATH=src:. python benchmarks/bench_review_inputs.py             # 10 MB, the shapes below
    PYTHONPATH=src:. python benchmarks/bench_review_inputs.py --mb 2      # another size

The text is written from the review tests' own pieces (tests/review): the seed-shaped description of the
fixture backend repository (built in a temp folder with git), then every pathological line of
tests/review/test_review_input_bounds.py (4,000 characters each: under the line bound, so each is read)
and its runs of lines (tables, log headers, continued commands, docs statuses), over and over. Reported:
``parse_text`` alone (the text as the three shapes apart: description only, pathological lines only, runs
only) and ``review_text`` of the mix (parse and every check against the fixture repository). Wall time
depends on what else the machine runs; the CPU time beside it does less.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from tests.review import texts
from tests.review.fixtures import build
from tests.review.test_review_input_bounds import W, _line_shapes, _sequences
from torchparity.config import load_config
from torchparity.review import review_text
from torchparity.review.parse import parse_text


def _repeat(parts: list[str], size: int) -> str:
    return "\n".join(parts * (size // sum(len(p) + 1 for p in parts) + 1))


def _timed(what: str, size: int, run: object) -> None:
    wall, cpu = time.perf_counter(), time.process_time()
    assert callable(run)
    found = run()
    print(
        f"{what}: {size / 1e6:.1f} MB in {time.perf_counter() - wall:.2f} s wall "
        f"({time.process_time() - cpu:.2f} s CPU){found}",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=10.0, help="size of each text in MB (default 10)")
    args = ap.parse_args()
    size = int(args.mb * 1_000_000)
    with tempfile.TemporaryDirectory(prefix="bench-review-") as tmp:
        repo = build(Path(tmp))
        config = Path(tmp) / "torchparity.toml"
        config.write_text('preset = "torch_npu"\n')
        unit = texts.seed_shape(texts.truth(repo))
        lines = list(_line_shapes(W).values())
        runs = list(_sequences(200).values())
        for what, parts in (
            ("parse, description only", [unit]),
            ("parse, pathological lines only", lines),
            ("parse, runs of lines only", runs),
        ):
            text = _repeat(parts, size)
            _timed(what, len(text), lambda t=text: f", {parse_text(t).count:,} claims")
        text = _repeat([unit, "\n".join(lines + runs)], size)
        cfg = load_config(config, repo.path)

        def review() -> str:
            result = review_text(text, repo.path, cfg, merge=repo.merge)
            return f", {len(result.verdicts):,} verdicts, {text.count(chr(10)) + 1:,} lines"

        _timed("review, all of them", len(text), review)


if __name__ == "__main__":
    main()
