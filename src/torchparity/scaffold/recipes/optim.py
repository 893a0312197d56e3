"""Recipe data of the ``optim`` family (``scaffold/optim.py``, ``templates/optim.py.j2``): the members
of an optimizer and of a learning-rate scheduler it tests."""

from __future__ import annotations

#: optimizer member -> the lines its test adds after the common ones (``{owner}``: the optimizer
#: class as the test spells it, ``{device}``: the device), calling the member through its class
OPTIMIZER_MEMBERS: dict[str, tuple[str, ...]] = {
    "step": (),
    "zero_grad": (),
    "state_dict": (),
    "load_state_dict": (),
    "add_param_group": (
        "bias = torch.nn.Parameter(torch.zeros(2, device={device}))",
        '{owner}.add_param_group(optimizer, {{"params": [bias], "lr": 0.5}})',
        "self.assertEqual(len(optimizer.param_groups), 2)",
        'self.assertEqual(optimizer.param_groups[1]["lr"], 0.5)',
        'self.assertIs(optimizer.param_groups[1]["params"][0], bias)',
        "with self.assertRaises(ValueError):",
        '    {owner}.add_param_group(optimizer, {{"params": [bias]}})',
    ),
    "__init__": (),
}
#: the scheduler members
SCHEDULER_MEMBERS = ("step", "get_last_lr", "state_dict", "load_state_dict", "__init__")
