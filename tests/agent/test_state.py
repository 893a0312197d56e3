"""The state registry, in this interpreter (torch 2.13.0 CPU)."""

from __future__ import annotations

import pytest

from tests.lazy import torch
from torchparity.agent import state
from torchparity.agent.api import states as api_states


@pytest.mark.slow
def test_registry_has_every_named_state_and_values_round_trip():
    reg = state.registry("cpu")
    expected = set(state.STATE_NAMES) - {"autocast_device"}
    assert set(reg) == expected
    usable, skipped = state.usable(reg)
    assert skipped == {}
    for name, spec in usable.items():
        original = spec.get()
        for value in spec.values("cpu"):
            undo = spec.push(value)
            try:
                assert spec.get() == value, name
            finally:
                undo()
            assert spec.get() == original, f"{name} not restored"


def test_autocast_for_the_run_device_is_added():
    reg = state.registry("cuda")
    assert reg["autocast_device"].title == "AUTOCAST CUDA"
    assert state.registry("cpu").get("autocast_device") is None


@pytest.mark.slow
def test_inference_mode_is_entered_and_left():
    spec = state.registry("cpu")["inference_mode"]
    undo = spec.push(True)
    assert torch.is_inference_mode_enabled()
    undo()
    assert not torch.is_inference_mode_enabled()


def test_api_to_state_link_is_data_and_follows_parents_and_aliases():
    assert api_states.states_for_api("torch.autograd.grad_mode.set_grad_enabled.clone") == (
        "grad_mode",
    )
    assert api_states.states_for_api("torch.set_grad_enabled") == ("grad_mode",)
    assert api_states.states_for_api(
        "torch.autograd.grad_mode.set_multithreading_enabled.clone"
    ) == ("multithreading",)
    assert api_states.states_for_api("torch.inference_mode") == ("inference_mode", "grad_mode")
    assert api_states.states_for_api("torch.nn.functional.relu") == ()
    for states in api_states.API_STATES.values():
        assert set(states) <= set(state.STATE_NAMES)


@pytest.mark.slow
def test_a_state_this_torch_lacks_is_skipped_with_the_reason():
    spec = state.StateSpec(
        "imaginary",
        getter=lambda: torch.imaginary_state(),
        setter=None,
        values=(False, True),
        requires=("torch.imaginary_state",),
        title="IMAGINARY",
    )
    usable, skipped = state.usable({"imaginary": spec})
    assert usable == {}
    assert skipped == {"imaginary": "this torch has no torch.imaginary_state"}


def test_snapshot_names_a_broken_getter_instead_of_crashing():
    def broken():
        raise RuntimeError("gone")

    spec = state.StateSpec("broken", getter=broken, title="BROKEN")
    assert state.snapshot({"broken": spec}) == {"broken": "<error RuntimeError>"}
