"""The checkpoint family's recipes: the torch.distributed.checkpoint names it takes and the role
each plays in a save and load, and the lines that test each function of
``torch.distributed.checkpoint.state_dict``.

``STATE_DICT_FUNCTIONS[leaf]`` holds the lines of the test of ``state_dict.<leaf>`` after a Linear
``model`` and its SGD ``optimizer`` (momentum) take one step on the device and a second Linear
``other`` is zeroed; ``{X}`` is the function as the test spells it, ``{device}`` the test's device.
"""

DCP = "torch.distributed.checkpoint"
WRITER, READER = f"{DCP}.FileSystemWriter", f"{DCP}.FileSystemReader"
SAVE_PLANNER, LOAD_PLANNER = f"{DCP}.DefaultSavePlanner", f"{DCP}.DefaultLoadPlanner"
TORCH_SAVE_READER = f"{DCP}.format_utils.BroadcastingTorchSaveReader"
DYNAMIC_PLANNER = f"{DCP}.format_utils.DynamicMetaLoadPlanner"
#: an API's leaf -> its role in the save and load
ROLES = {
    "save": "save",
    "state_dict_saver.save": "save",
    "_save_state_dict": "private_save",
    "load": "load",
    "state_dict_loader.load": "load",
    "_load_state_dict": "private_load",
    "FileSystemWriter": "writer",
    "FileSystemReader": "reader",
    "DefaultSavePlanner": "save_planner",
    "DefaultLoadPlanner": "load_planner",
    "_EmptyStateDictLoadPlanner": "empty_planner",
    "StorageWriter": "abstract_writer",
    "StorageReader": "abstract_reader",
    "SavePlanner": "abstract_save_planner",
    "LoadPlanner": "abstract_load_planner",
}
#: the readers that load what torch.save wrote (in a one-rank process group)
TORCH_SAVE_READERS = ("BroadcastingTorchSaveReader",)
#: a protocol class (abstract, or the default concrete one) -> (its slot in save/load, the concrete class)
MEMBER_SLOTS = {
    "SavePlanner": ("save_planner", SAVE_PLANNER),
    "DefaultSavePlanner": ("save_planner", SAVE_PLANNER),
    "LoadPlanner": ("load_planner", LOAD_PLANNER),
    "DefaultLoadPlanner": ("load_planner", LOAD_PLANNER),
    "StorageWriter": ("writer", WRITER),
    "FileSystemWriter": ("writer", WRITER),
    "_FileSystemWriter": ("writer", WRITER),
    "StorageReader": ("reader", READER),
    "FileSystemReader": ("reader", READER),
    "BroadcastingTorchSaveReader": ("torch_save_reader", TORCH_SAVE_READER),
}
#: the start of the names of a protocol class's members that save/load does not call as steps
#: (``__init__``, ``__repr__``)
SPECIAL = "__"
STAGERS = ("AsyncStager", "BlockingAsyncStager")
STAGER_MEMBERS = ("stage", "synchronize_staging", "should_synchronize_after_execute")

_NO_KEYS_LEFT = (
    "self.assertEqual((list(result.missing_keys), list(result.unexpected_keys)), ([], []))"
)
_OTHER_OPTIMIZER = "other_optimizer = torch.optim.SGD(other.parameters(), lr=0.5, momentum=0.9)"
_OPTIM_STATE_OF_MODEL = "optim_state = torch.distributed.checkpoint.state_dict.get_optimizer_state_dict(model, optimizer)"
_MODEL_STATE = (
    'self.assertEqual(sorted(model_state), ["bias", "weight"])',
    "for name, value in model_state.items():",
    "    self.assertEqual(value.device.type, {device}.type)",
    "    torch.testing.assert_close(value, getattr(model, name))",
    "# the state_dict loads into another model: its values come over",
    "other.load_state_dict(model_state)",
    "torch.testing.assert_close(other.weight, model.weight)",
)
_OPTIM_STATE = (
    "# parameters are named by their fully qualified names, not numbered",
    'self.assertEqual(optim_state["param_groups"][0]["params"], ["weight", "bias"])',
    'self.assertEqual(optim_state["param_groups"][0]["lr"], 0.1)',
    'self.assertEqual(sorted(optim_state["state"]), ["bias", "weight"])',
    'buffer = optim_state["state"]["weight"]["momentum_buffer"]',
    "self.assertEqual(buffer.device.type, {device}.type)",
    "torch.testing.assert_close(buffer, torch.ones(2, 3, device={device}))",
    'bias_buffer = optim_state["state"]["bias"]["momentum_buffer"]',
    "torch.testing.assert_close(bias_buffer, torch.ones(2, device={device}))",
)
_MODEL_LOADED = (
    "# the model's values come over, on the device",
    "self.assertEqual(other.weight.device.type, {device}.type)",
    "torch.testing.assert_close(other.weight, model.weight)",
    "torch.testing.assert_close(other.bias, model.bias)",
)
_OPTIMIZER_LOADED = (
    "# the optimizer's rate and momentum buffers come over: each buffer is the step's gradient",
    'self.assertEqual(other_optimizer.param_groups[0]["lr"], 0.1)',
    'buffers = [other_optimizer.state[p]["momentum_buffer"] for p in (other.weight, other.bias)]',
    "torch.testing.assert_close(buffers[0], torch.ones(2, 3, device={device}))",
    "torch.testing.assert_close(buffers[1], torch.ones(2, device={device}))",
    "self.assertEqual(buffers[0].device.type, {device}.type)",
)
#: torch.distributed.checkpoint.state_dict's readers and loaders of a model's and an optimizer's state
STATE_DICT_FUNCTIONS: dict[str, tuple[str, ...]] = {
    "get_model_state_dict": ("model_state = {X}(model)",) + _MODEL_STATE,
    "get_optimizer_state_dict": ("optim_state = {X}(model, optimizer)",) + _OPTIM_STATE,
    "get_state_dict": ("model_state, optim_state = {X}(model, optimizer)",)
    + _MODEL_STATE
    + _OPTIM_STATE,
    "set_model_state_dict": (
        _OPTIM_STATE_OF_MODEL,
        "result = {X}(other, model.state_dict())",
        _NO_KEYS_LEFT,
    )
    + _MODEL_LOADED,
    "set_optimizer_state_dict": (
        _OTHER_OPTIMIZER,
        _OPTIM_STATE_OF_MODEL,
        "self.assertIsNone({X}(other, other_optimizer, optim_state))",
    )
    + _OPTIMIZER_LOADED,
    "set_state_dict": (
        _OTHER_OPTIMIZER,
        _OPTIM_STATE_OF_MODEL,
        "result = {X}(other, other_optimizer, model_state_dict=model.state_dict(), optim_state_dict=optim_state)",
        _NO_KEYS_LEFT,
    )
    + _MODEL_LOADED
    + _OPTIMIZER_LOADED,
}
_READS = (
    "the state of a Linear and its SGD optimizer after one step, keyed by parameter names: values and "
    "devices, and each momentum buffer equal to the step's gradient (ones)"
)
_LOADS = (
    "a Linear's and its SGD optimizer's state after one step loaded into another pair: weights, the "
    "rate and the momentum buffers (the step's gradient, ones) come over on the device"
)
#: what each function's test checks
STATE_DICT_WHAT = {
    "get_model_state_dict": _READS,
    "get_optimizer_state_dict": _READS,
    "get_state_dict": _READS,
    "set_model_state_dict": _LOADS,
    "set_optimizer_state_dict": _LOADS,
    "set_state_dict": _LOADS,
}
