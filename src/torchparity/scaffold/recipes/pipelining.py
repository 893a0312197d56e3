"""The pipelining family's recipes: the torch.distributed.pipelining names it takes, how each stages
the model and which schedule runs it, and the lines that differ by name.

``LINES[leaf]`` holds the lines a name's test has in place of the template's: ``stage`` (the one
stage of a ``single`` role), ``pipe`` (how a ``pipe`` role splits ``model`` into ``pipe``, fed
``x``), ``made`` (checks of the ``schedule`` made) and ``step`` (the call that runs the schedule);
``{X}`` is the API as the test spells it, ``{device}`` the test's device; ``{{``/``}}`` are braces
of the test's own code; an empty line is a blank line.
"""

PIPELINING = "torch.distributed.pipelining"
GPIPE, INTERLEAVED = f"{PIPELINING}.ScheduleGPipe", f"{PIPELINING}.ScheduleInterleaved1F1B"
#: API leaf -> (how the model is staged, the schedule that runs it: "" for the API itself)
ROLES = {
    "ScheduleGPipe": ("single", ""),
    "Schedule1F1B": ("single", ""),
    "PipelineStage": ("single", GPIPE),
    "PipelineScheduleSingle": ("single", GPIPE),
    "ScheduleInterleaved1F1B": ("multi", ""),
    "ScheduleLoopedBFS": ("multi", ""),
    "PipelineScheduleMulti": ("multi", INTERLEAVED),
    "pipeline": ("pipe", INTERLEAVED),
    "Pipe": ("pipe", INTERLEAVED),
    "SplitPoint": ("pipe", INTERLEAVED),
    "pipe_split": ("pipe", INTERLEAVED),
}
#: members tested through their class: (owner leaf, member) -> the role's entry
MEMBERS = {
    ("PipelineScheduleSingle", "step"): ("single", GPIPE),
    ("PipelineScheduleMulti", "step"): ("multi", INTERLEAVED),
}
_SCHEDULE_MADE = ("self.assertIsInstance(schedule, {X})",)
LINES: dict[str, dict[str, tuple[str, ...]]] = {
    "PipelineStage": {"stage": ("stages = {X}(model, 0, 1, {device})",)},
    "PipelineScheduleSingle": {"made": _SCHEDULE_MADE},
    "PipelineScheduleMulti": {"made": _SCHEDULE_MADE},
    "step": {"step": ("output = {X}(schedule, x, target=target, losses=losses)",)},
    "pipe_split": {
        "pipe": (
            "",
            "class Split(torch.nn.Module):",
            "    def __init__(self, layers):",
            "        super().__init__()",
            "        self.first, self.second = layers[0], layers[1]",
            "",
            "    def forward(self, x):",
            "        x = self.first(x)",
            "        {X}()",
            "        return self.second(x)",
            "",
            "pipe = torch.distributed.pipelining.pipeline(Split(model), mb_args=(x[:2],))",
        ),
    },
    "pipeline": {
        "pipe": (
            'split = {{"1": torch.distributed.pipelining.SplitPoint.BEGINNING}}',
            "pipe = {X}(model, mb_args=(x[:2],), split_spec=split)",
        ),
    },
    "SplitPoint": {
        "pipe": (
            "self.assertEqual({X}.BEGINNING.value, 1)",
            'pipe = torch.distributed.pipelining.pipeline(model, mb_args=(x[:2],), split_spec={{"1": {X}.BEGINNING}})',
        ),
    },
    "Pipe": {
        "pipe": (
            'split = {{"1": torch.distributed.pipelining.SplitPoint.BEGINNING}}',
            "pipe = torch.distributed.pipelining.pipeline(model, mb_args=(x[:2],), split_spec=split)",
            "self.assertIsInstance(pipe, {X})",
        ),
    },
}
