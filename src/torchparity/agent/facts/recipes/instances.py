"""Recipes of instances: receivers and arguments built the way a user builds them, as source.

Everything here is source that runs with ``torch``, ``os`` and ``datetime`` bound, plus four
placeholders the controller later spells for the test file: ``DEVICE`` (the device under test; bound
to the CPU while measuring), ``_TMP_`` (a temporary folder the test creates), ``_OWNER_`` (the class
the API belongs to, as the test spells it) and ``_API_`` (the API itself). A recipe comes before a
guess by name in the value chain (``names.py``). Data only (see ``__init__.py``); read by
``recipe_lookup.py`` and ``receivers.py``.
"""

from __future__ import annotations

from typing import Dict, Tuple

Setup = Tuple[str, ...]

#: a module traced by torch.fx, and its graph: a placeholder, a linear call, a relu, the output
GRAPH_MODULE = (
    "gm = torch.fx.symbolic_trace(torch.nn.Sequential(torch.nn.Linear(3, 2), "
    "torch.nn.ReLU()).to(DEVICE))"
)
_PARAM = "param = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0], device=DEVICE))"
_OPTIMIZER = (
    _PARAM,
    "param.grad = torch.tensor([0.5, 0.5, -1.0], device=DEVICE)",
    "optimizer = torch.optim.SGD([param], lr=0.1)",
)
_SCRIPT_MODULE = ("script_module = torch.jit.script(torch.nn.Linear(3, 2).to(DEVICE))",)
_SCRIPT_FUNCTION = ("script_fn = torch.jit.script(torch.nn.functional.relu)",)
_GENERATOR = ("generator = torch.Generator(device=DEVICE)", "generator.manual_seed(7)")
_STORAGE = (
    "storage = torch.tensor([1, 2, 3], dtype=torch.uint8, device=DEVICE).untyped_storage()",
)
_TENSOR = ("x = torch.arange(1.0, 7.0, device=DEVICE).reshape(2, 3)",)

#: torch.distributed.elastic: a rendezvous over in-process stores (no network), its handler, and an agent (a timer
#: server has none: its watchdog thread would outlive the test)
_E = "torch.distributed.elastic."
_BACKEND = (
    _E
    + 'rendezvous.c10d_rendezvous_backend.C10dRendezvousBackend(torch.distributed.HashStore(), "run")'
)
_HANDLER = (
    'handler = %srendezvous.dynamic_rendezvous.DynamicRendezvousHandler.from_backend("run", '
    "torch.distributed.HashStore(), %s, 1, 1)" % (_E, _BACKEND)
)
_SPEC = (
    'spec = %sagent.server.api.WorkerSpec(role="trainer", local_world_size=1, rdzv_handler=handler, '
    'entrypoint="echo", args=("torchparity",))' % _E
)
_STORE = ("store = torch.distributed.HashStore()",)

#: a DDP gradient bucket, caught by a communication hook during one backward pass (the probe's second pass
#: runs it in a one-process group); the model's weights drawn with the CPU generator, seeded
GRAD_BUCKET = (
    "torch.manual_seed(0)",
    "model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 2).to(DEVICE))",
    "buckets = []",
    "model.register_comm_hook(None, lambda state, bucket: buckets.append(bucket) or "
    "(lambda future: future.set_result(bucket.buffer()) or future)(torch.futures.Future()))",
    "model(torch.ones(1, 3, device=DEVICE)).sum().backward()",
    "bucket = buckets[0]",
)

#: distributions whose parameters must agree in shape or be positive definite (a covariance, a mixture)
_COV = "torch.tensor([[2.0, 1.0], [1.0, 3.0]], device=DEVICE)"

#: a module whose weight the pruning calls between these two pruned, and the method they left as its forward
#: pre-hook: what ``apply_mask``, ``remove`` and the mask methods act on. Seeded: ``random_structured`` draws its
#: channels with the CPU generator, the same on every device. ``random_unstructured`` draws on the device
#: (``rand_like``), whose stream is its own, so it has no recipe: a mask measured here would not hold there.
_PRUNED_MODULE = ("module = torch.nn.Linear(3, 2, device=DEVICE)", "torch.manual_seed(0)")
_PRUNED_HOOK = ("method = next(iter(module._forward_pre_hooks.values()))",)
_L1_PRUNED = 'torch.nn.utils.prune.l1_unstructured(module, "weight", amount=0.5)'
_RANDOM_PRUNED = 'torch.nn.utils.prune.random_structured(module, "weight", amount=0.5, dim=0)'

#: class (any name it is reached by) -> statements whose last one binds an instance of it
RECIPES: Dict[str, Setup] = {
    "torch.nn.modules.module.Module": ("module = torch.nn.Linear(3, 2, device=DEVICE)",),
    "torch.nn.parameter.Parameter": (_PARAM,),
    "torch.nn.parameter.Buffer": ("buffer = _OWNER_(torch.tensor([1.0, 2.0], device=DEVICE))",),
    "torch.nn.parameter.UninitializedParameter": ("param = _OWNER_(device=DEVICE)",),
    "torch.nn.parameter.UninitializedBuffer": ("buffer = _OWNER_(device=DEVICE)",),
    "torch.fx.graph_module.GraphModule": (GRAPH_MODULE,),
    "torch.fx.graph.Graph": (GRAPH_MODULE, "graph = gm.graph"),
    "torch.fx.node.Node": (GRAPH_MODULE, "node = list(gm.graph.nodes)[1]"),
    "torch.fx.interpreter.Interpreter": (GRAPH_MODULE, "interpreter = _OWNER_(gm)"),
    "torch.fx.interpreter.Transformer": (GRAPH_MODULE, "transformer = _OWNER_(gm)"),
    "torch.fx.proxy.Proxy": ("graph = torch.fx.Graph()", 'proxy = _OWNER_(graph.placeholder("x"))'),
    "torch.jit._script.ScriptModule": _SCRIPT_MODULE,
    "torch.jit._script.RecursiveScriptModule": _SCRIPT_MODULE,
    "torch.jit.ScriptFunction": _SCRIPT_FUNCTION,
    "torch._C.ScriptFunction": _SCRIPT_FUNCTION,
    "torch.optim.optimizer.Optimizer": _OPTIMIZER,
    "torch.optim.lr_scheduler.LRScheduler": _OPTIMIZER
    + ("scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)",),
    "torch.utils.data.dataset.Dataset": (
        "dataset = torch.utils.data.TensorDataset(torch.arange(6.0, device=DEVICE).reshape(3, 2))",
    ),
    "torch.utils.data.dataloader.DataLoader": (
        "loader = torch.utils.data.DataLoader(torch.arange(5.0, device=DEVICE), batch_size=2)",
    ),
    "torch.utils.data.sampler.Sampler": ("sampler = torch.utils.data.SequentialSampler(range(4))",),
    "torch._C.Generator": _GENERATOR,
    "torch.Generator": _GENERATOR,
    "torch.storage.UntypedStorage": _STORAGE,
    "torch.UntypedStorage": _STORAGE,
    "torch._C.StorageBase": _STORAGE,
    "torch.Tensor": _TENSOR,
    "torch._C.TensorBase": _TENSOR,
    "torch.Size": ("size = torch.Size([2, 3])",),
    "torch.autograd.profiler_util.StringTable": ("table = _OWNER_()", 'table["aten::add"]'),
    "torch.nn.utils.rnn.PackedSequence": (
        "packed = _OWNER_(torch.tensor([1.0, 2.0, 3.0], device=DEVICE), torch.tensor([2, 1]))",
    ),
    "torch.fx.experimental.symbolic_shapes.ShapeEnv": ("shape_env = _OWNER_()",),
    "torch.distributed.checkpoint.storage.StorageWriter": (
        "writer = torch.distributed.checkpoint.FileSystemWriter(_TMP_)",
    ),
    "torch.distributed.checkpoint.storage.StorageReader": (
        "reader = torch.distributed.checkpoint.FileSystemReader(_TMP_)",
    ),
    # torch.distributed.elastic (see _E above)
    "torch.distributed.elastic.agent.server.api.WorkerSpec": (_HANDLER, _SPEC),
    "torch._C._distributed_c10d.Store": _STORE,
    "torch.distributed.Store": _STORE,
    "torch.distributed.distributed_c10d.Store": _STORE,
    "torch.distributed.elastic.rendezvous.dynamic_rendezvous.RendezvousBackend": (
        "backend = " + _BACKEND,
    ),
    "torch.distributed.elastic.rendezvous.api.RendezvousHandler": (_HANDLER,),
    "torch.distributed.elastic.agent.server.api.SimpleElasticAgent": (
        _HANDLER,
        _SPEC,
        "worker_group = %sagent.server.api.WorkerGroup(spec)" % _E,
        "agent = %sagent.server.local_elastic_agent.LocalElasticAgent(spec, logs_specs=%smultiprocessing."
        "DefaultLogsSpecs(log_dir=_TMP_))" % (_E, _E),
    ),
    # a quantization backend's pattern: a Linear
    "torch.ao.quantization.backend_config.backend_config.BackendPatternConfig": (
        "pattern_config = _OWNER_(torch.nn.Linear)",
    ),
    # a quantization observer that has seen a batch (its running minimum and maximum are set)
    "torch.ao.quantization.observer.ObserverBase": (
        "observer = _OWNER_()",
        "observer(torch.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], device=DEVICE))",
    ),
    # a module held by the probe's one RPC worker (its RPC pass), built on the device under test
    "torch.distributed.nn.api.remote_module.RemoteModule": (
        "torch.manual_seed(0)",
        'remote_module = torch.distributed.nn.api.remote_module.RemoteModule("worker0/" + str(DEVICE), '
        "torch.nn.Linear, args=(3, 2))",
    ),
    # a one-device mesh over the probe's one-process group (its second pass: the first line fails without a
    # group, where ``init_device_mesh`` would start one of its own that nothing ends)
    "torch.distributed.device_mesh.DeviceMesh": (
        "torch.distributed.get_world_size()",
        'mesh = torch.distributed.device_mesh.init_device_mesh(DEVICE.type, (1,), mesh_dim_names=("dp",))',
    ),
    "torch._C._distributed_c10d.GradBucket": GRAD_BUCKET,
    "torch.distributed.GradBucket": GRAD_BUCKET,
    # containers holding one entry (a member that empties or reads them has something to act on)
    "torch.nn.modules.container.ParameterDict": (
        'params = _OWNER_({"weight": torch.nn.Parameter(torch.tensor([1.0, -2.0], device=DEVICE))})',
    ),
    "torch.nn.modules.container.ParameterList": (
        "params = _OWNER_([torch.nn.Parameter(torch.tensor([1.0, -2.0], device=DEVICE))])",
    ),
    "torch.nn.modules.container.ModuleDict": (
        'modules = _OWNER_({"linear": torch.nn.Linear(3, 2, device=DEVICE)})',
    ),
    "torch.nn.modules.container.ModuleList": (
        "modules = _OWNER_([torch.nn.Linear(3, 2, device=DEVICE)])",
    ),
    # a package written first, holding one pickled object
    "torch.package.package_importer.PackageImporter": (
        'path = os.path.join(_TMP_, "probe.pt")',
        "exporter = torch.package.PackageExporter(path)",
        'exporter.save_pickle("probe", "obj.pkl", {"a": 1})',
        "exporter.close()",
        "importer = _OWNER_(path)",
    ),
    # a child that failed with exit code 1 and left no error file
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError": (
        'error = _OWNER_("trainer", {0: torch.distributed.elastic.multiprocessing.errors.ProcessFailure('
        'local_rank=0, pid=1, exitcode=1, error_file="")})',
    ),
    # a module sharded by FSDP over the probe's one-process group (on the device under test, which FSDP needs
    # named on a CPU), after one backward pass
    "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel": (
        "torch.distributed.get_world_size()",
        "torch.manual_seed(0)",
        "fsdp = _OWNER_(torch.nn.Linear(3, 2).to(DEVICE), device_id=DEVICE)",
        "fsdp(torch.ones(1, 3, device=DEVICE)).sum().backward()",
    ),
    # torch.monitor: a stat that has seen two values, an event with a fixed time and data
    "torch._C._monitor.Stat": (
        'stat = _OWNER_("probe.stat", [torch.monitor.Aggregation.SUM, torch.monitor.Aggregation.COUNT], '
        "datetime.timedelta(seconds=60))",
        "stat.add(2.0)",
        "stat.add(3.5)",
    ),
    "torch._C._monitor.Event": (
        'event = _OWNER_("probe.event", datetime.datetime(2026, 1, 2, 3, 4, 5), {"loss": 0.5, "step": 3})',
    ),
    # a module whose weight is parametrized by weight normalisation (a parametrization with a right inverse)
    "torch.nn.utils.parametrize.ParametrizationList": (
        "module = torch.nn.Linear(3, 2, device=DEVICE)",
        "torch.nn.utils.parametrizations.weight_norm(module)",
        "parametrizations = module.parametrizations.weight",
    ),
    # distributions (see _COV above)
    "torch.distributions.multivariate_normal.MultivariateNormal": (
        "distribution = _OWNER_(torch.zeros(2, device=DEVICE), covariance_matrix=%s)" % _COV,
    ),
    "torch.distributions.lowrank_multivariate_normal.LowRankMultivariateNormal": (
        "distribution = _OWNER_(torch.zeros(2, device=DEVICE), torch.tensor([[1.0], [0.5]], device=DEVICE), "
        "torch.tensor([1.0, 2.0], device=DEVICE))",
    ),
    "torch.distributions.wishart.Wishart": (
        "distribution = _OWNER_(torch.tensor(3.0, device=DEVICE), covariance_matrix=%s)" % _COV,
    ),
    "torch.distributions.transformed_distribution.TransformedDistribution": (
        "distribution = _OWNER_(torch.distributions.Normal(torch.tensor([0.0, 1.0], device=DEVICE), "
        "torch.tensor([1.0, 2.0], device=DEVICE)), [torch.distributions.transforms.ExpTransform()])",
    ),
    "torch.distributions.independent.Independent": (
        "distribution = _OWNER_(torch.distributions.Normal(torch.zeros(2, device=DEVICE), "
        "torch.ones(2, device=DEVICE)), 1)",
    ),
    "torch.distributions.mixture_same_family.MixtureSameFamily": (
        "distribution = _OWNER_(torch.distributions.Categorical(torch.tensor([0.25, 0.75], device=DEVICE)), "
        "torch.distributions.Normal(torch.tensor([0.0, 1.0], device=DEVICE), torch.tensor([1.0, 2.0], "
        "device=DEVICE)))",
    ),
    # pruning methods (see _PRUNED_MODULE above)
    "torch.nn.utils.prune.L1Unstructured": _PRUNED_MODULE + (_L1_PRUNED,) + _PRUNED_HOOK,
    "torch.nn.utils.prune.RandomStructured": _PRUNED_MODULE + (_RANDOM_PRUNED,) + _PRUNED_HOOK,
    "torch.nn.utils.prune.LnStructured": _PRUNED_MODULE
    + ('torch.nn.utils.prune.ln_structured(module, "weight", amount=0.5, n=2, dim=0)',)
    + _PRUNED_HOOK,
    "torch.nn.utils.prune.Identity": _PRUNED_MODULE
    + ('torch.nn.utils.prune.identity(module, "weight")',)
    + _PRUNED_HOOK,
    "torch.nn.utils.prune.CustomFromMask": _PRUNED_MODULE
    + (
        'torch.nn.utils.prune.custom_from_mask(module, "weight", mask=torch.tensor([[1.0, 0.0, 1.0], '
        "[0.0, 1.0, 0.0]], device=DEVICE))",
    )
    + _PRUNED_HOOK,
    "torch.nn.utils.prune.PruningContainer": _PRUNED_MODULE
    + (_L1_PRUNED, _RANDOM_PRUNED)
    + _PRUNED_HOOK,
}

#: further receivers, tried after the recipe: a parameter and a tensor that have a gradient
_BACKWARD = "(param * param).sum().backward()"
MORE_RECIPES: Dict[str, Tuple[Setup, ...]] = {
    "torch.nn.parameter.Parameter": ((_PARAM, _BACKWARD),),
    "torch.Tensor": (
        (
            "x = torch.tensor([1.0, -2.0, 3.0], device=DEVICE, requires_grad=True)",
            "(x * x).sum().backward()",
        ),
        # a scalar result of a graph (``backward`` fills the leaf's gradient)
        (
            "leaf = torch.tensor([1.0, -2.0, 3.0], device=DEVICE, requires_grad=True)",
            "x = (leaf * leaf).sum()",
        ),
        # counts: small non-negative integers, one repeated (``bincount``)
        ("x = torch.tensor([0, 2, 1, 2, 4], device=DEVICE)",),
    ),
    # a rendezvous backend that holds a state already (``get_state`` has something to give back)
    "torch.distributed.elastic.rendezvous.dynamic_rendezvous.RendezvousBackend": (
        (
            "backend = torch.distributed.elastic.rendezvous.c10d_rendezvous_backend.C10dRendezvousBackend("
            'torch.distributed.HashStore(), "run")',
            'backend.set_state(b"probe-state")',
        ),
    ),
    # a profiler that recorded one matrix product (what ``key_averages`` and the exports have to show)
    "torch.profiler.profiler._KinetoProfile": (
        (
            "profiler = _OWNER_(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True)",
            "profiler.start()",
            "torch.mm(torch.ones(2, 3, device=DEVICE), torch.ones(3, 2, device=DEVICE))",
            "profiler.stop()",
        ),
    ),
    # eight bytes: whole elements of every width up to 8 (``byteswap(dtype)``, a view as int64)
    "torch.storage.UntypedStorage": (
        ("storage = torch.arange(1, 9, dtype=torch.uint8, device=DEVICE).untyped_storage()",),
    ),
}

_EXPORTED = (
    "exported = torch.export.export(torch.nn.ReLU(), (torch.tensor([1.0, -2.0, 3.0], device=DEVICE),))",
)
_SGD = (
    "param = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0], device=DEVICE))",
    "optimizer = torch.optim.SGD([param], lr=0.1)",
)
_TWO_SCHEDULERS = (
    "[torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5), "
    "torch.optim.lr_scheduler.ConstantLR(optimizer, factor=0.5, total_iters=2)]"
)
#: instances no constructor of their class makes here: built by the API that makes them (class -> statements
#: whose last binds one). A test reaches such a receiver or argument the way a user does.
MADE_ELSEWHERE: Dict[str, Setup] = {
    "torch._ops.OpOverload": ("op = torch.ops.aten.add.Tensor",),
    "torch._ops.OpOverloadPacket": ("packet = torch.ops.aten.add",),
    "torch._dynamo.eval_frame.OptimizedModule": (
        'compiled = torch.compile(torch.nn.Linear(3, 2).to(DEVICE), backend="eager")',
    ),
    "torch.export.exported_program.ExportedProgram": _EXPORTED,
    # schedulers made of other schedulers of one optimizer
    "torch.optim.lr_scheduler.SequentialLR": _SGD
    + ("scheduler = _OWNER_(optimizer, %s, milestones=[2])" % _TWO_SCHEDULERS,),
    "torch.optim.lr_scheduler.ChainedScheduler": _SGD
    + ("scheduler = _OWNER_(%s, optimizer=optimizer)" % _TWO_SCHEDULERS,),
}
#: a loader's file, written by its saver first: API -> (setup, the value its first parameter is given first)
SAVED_FIRST: Dict[str, Tuple[Setup, str]] = {
    "torch.export.load": (
        _EXPORTED
        + ('path = os.path.join(_TMP_, "exported.pt2")', "torch.export.save(exported, path)"),
        "path",
    ),
}
#: further receivers of a class, tried after its recipes: a double tensor for the in-place members whose
#: result is double (``float_power_``), a sparse tensor for the sparse members of Tensor
MORE_MADE: Dict[str, Tuple[Setup, ...]] = {
    "torch.Tensor": (
        ("x = torch.arange(1.0, 7.0, dtype=torch.float64, device=DEVICE).reshape(2, 3)",),
        ("x = torch.tensor([[1.0, 0.0], [0.0, 2.0]], device=DEVICE).to_sparse_csr()",),
        ("x = torch.tensor([[1.0, 0.0], [0.0, 2.0]], device=DEVICE).to_sparse()",),
    ),
}
