"""The stand-in installs for a module flag whose setter checks its argument (a proxy holds it).

``torch.backends.cudnn.enabled = SENTINEL`` raises ``RuntimeError`` (``set_enabled_cudnn expects a
bool``): the flag's holder is replaced, where it is read from, by a proxy whose flag is the sentinel and
whose other members are the holder's. Installed in a forked child (``isolate.in_child``), so this
interpreter keeps the real flag.
"""

from __future__ import annotations

import pytest

from tests.lazy import torch  # noqa: E402  (imported on first use: fast tests here need none)
from torchparity.agent.api.resolve import resolve  # noqa: E402
from torchparity.agent.facts.isolate import in_child  # noqa: E402


def _install_and_read(name: str) -> tuple[dict[str, object], str, bool, str]:
    from torchparity.agent.facts import standin

    out = standin.install(resolve(name))
    holder = name.rsplit(".", 1)[0]
    value = eval(name, {"torch": torch})
    other = eval(f"{holder}.is_available()", {"torch": torch})
    return (
        out,
        repr(value),
        bool(other) == bool(eval(f"{holder}.is_available()", {"torch": torch})),
        type(eval(holder, {"torch": torch})).__name__,
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", ["torch.backends.cudnn.enabled", "torch.backends.mkldnn.enabled"])
def test_a_checked_flag_is_replaced_through_a_proxy_of_its_holder(name: str) -> None:
    before = eval(name, {"torch": torch})
    out, value, other_ok, holder_type = in_child(_install_and_read, (name,))
    assert name in out["replaced"] and out["problem"] == "", out  # type: ignore[operator]
    assert value == "<torchparity stand-in sentinel>"
    assert other_ok and holder_type == "_Proxy"
    assert eval(name, {"torch": torch}) == before  # the child's change stayed there
