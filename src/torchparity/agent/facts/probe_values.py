"""Source text a measured scenario is built from: receivers of classes, and argument values.

Everything here is source that runs with ``torch`` and ``os`` bound, plus four
placeholders the controller later spells for the test file: ``DEVICE`` (the
device under test; bound to the CPU while measuring), ``_TMP_`` (a temporary
folder the test creates), ``_OWNER_`` (the class the API belongs to, as the
test spells it) and ``_API_`` (the API itself).
"""

import re

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

#: class (any name it is reached by) -> statements whose last one binds an instance of it
RECIPES = {
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
    "torch.jit._script.ScriptModule": (
        "script_module = torch.jit.script(torch.nn.Linear(3, 2).to(DEVICE))",
    ),
    "torch.jit._script.RecursiveScriptModule": (
        "script_module = torch.jit.script(torch.nn.Linear(3, 2).to(DEVICE))",
    ),
    "torch.jit.ScriptFunction": ("script_fn = torch.jit.script(torch.nn.functional.relu)",),
    "torch._C.ScriptFunction": ("script_fn = torch.jit.script(torch.nn.functional.relu)",),
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
    "torch._C.Generator": (
        "generator = torch.Generator(device=DEVICE)",
        "generator.manual_seed(7)",
    ),
    "torch.Generator": ("generator = torch.Generator(device=DEVICE)", "generator.manual_seed(7)"),
    "torch.storage.UntypedStorage": (
        "storage = torch.tensor([1, 2, 3], dtype=torch.uint8, device=DEVICE).untyped_storage()",
    ),
    "torch.UntypedStorage": (
        "storage = torch.tensor([1, 2, 3], dtype=torch.uint8, device=DEVICE).untyped_storage()",
    ),
    "torch._C.StorageBase": (
        "storage = torch.tensor([1, 2, 3], dtype=torch.uint8, device=DEVICE).untyped_storage()",
    ),
    "torch.Tensor": ("x = torch.arange(1.0, 7.0, device=DEVICE).reshape(2, 3)",),
    "torch._C.TensorBase": ("x = torch.arange(1.0, 7.0, device=DEVICE).reshape(2, 3)",),
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
}


def _pruned(*calls):
    """A module whose weight the pruning ``calls`` pruned, and the method they left as its forward pre-hook:
    what ``apply_mask``, ``remove`` and the mask methods act on. Seeded: ``random_structured`` draws its
    channels with the CPU generator, the same on every device. ``random_unstructured`` draws on the device
    (``rand_like``), whose stream is its own, so it has no recipe: a mask measured here would not hold there."""
    return (
        ("module = torch.nn.Linear(3, 2, device=DEVICE)", "torch.manual_seed(0)")
        + tuple("torch.nn.utils.prune.%s" % c for c in calls)
        + ("method = next(iter(module._forward_pre_hooks.values()))",)
    )


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
RECIPES.update(
    {
        _E + "agent.server.api.WorkerSpec": (_HANDLER, _SPEC),
        "torch._C._distributed_c10d.Store": ("store = torch.distributed.HashStore()",),
        "torch.distributed.Store": ("store = torch.distributed.HashStore()",),
        "torch.distributed.distributed_c10d.Store": ("store = torch.distributed.HashStore()",),
        _E + "rendezvous.dynamic_rendezvous.RendezvousBackend": ("backend = " + _BACKEND,),
        _E + "rendezvous.api.RendezvousHandler": (_HANDLER,),
        _E + "agent.server.api.SimpleElasticAgent": (
            _HANDLER,
            _SPEC,
            "worker_group = %sagent.server.api.WorkerGroup(spec)" % _E,
            "agent = %sagent.server.local_elastic_agent.LocalElasticAgent(spec, logs_specs=%smultiprocessing."
            "DefaultLogsSpecs(log_dir=_TMP_))" % (_E, _E),
        ),
    }
)

#: a DDP gradient bucket, caught by a communication hook during one backward pass (the probe's second pass
#: runs it in a one-process group); the model's weights drawn with the CPU generator, seeded
_GRAD_BUCKET = (
    "torch.manual_seed(0)",
    "model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 2).to(DEVICE))",
    "buckets = []",
    "model.register_comm_hook(None, lambda state, bucket: buckets.append(bucket) or "
    "(lambda future: future.set_result(bucket.buffer()) or future)(torch.futures.Future()))",
    "model(torch.ones(1, 3, device=DEVICE)).sum().backward()",
    "bucket = buckets[0]",
)
#: a quantization backend's pattern: a Linear
RECIPES["torch.ao.quantization.backend_config.backend_config.BackendPatternConfig"] = (
    "pattern_config = _OWNER_(torch.nn.Linear)",
)
#: a quantization observer that has seen a batch (its running minimum and maximum are set)
RECIPES["torch.ao.quantization.observer.ObserverBase"] = (
    "observer = _OWNER_()",
    "observer(torch.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], device=DEVICE))",
)
#: a module held by the probe's one RPC worker (its RPC pass), built on the device under test
RECIPES["torch.distributed.nn.api.remote_module.RemoteModule"] = (
    "torch.manual_seed(0)",
    'remote_module = torch.distributed.nn.api.remote_module.RemoteModule("worker0/" + str(DEVICE), '
    "torch.nn.Linear, args=(3, 2))",
)
#: a one-device mesh over the probe's one-process group (its second pass: the first line fails without a group,
#: where ``init_device_mesh`` would start one of its own that nothing ends)
RECIPES["torch.distributed.device_mesh.DeviceMesh"] = (
    "torch.distributed.get_world_size()",
    'mesh = torch.distributed.device_mesh.init_device_mesh(DEVICE.type, (1,), mesh_dim_names=("dp",))',
)
RECIPES.update(
    {
        "torch._C._distributed_c10d.GradBucket": _GRAD_BUCKET,
        "torch.distributed.GradBucket": _GRAD_BUCKET,
    }
)
#: containers holding one entry (a member that empties or reads them has something to act on)
RECIPES.update(
    {
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
    }
)
#: a module sharded by FSDP over the probe's one-process group (on the device under test, which FSDP needs
#: named on a CPU), after one backward pass
RECIPES["torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel"] = (
    "torch.distributed.get_world_size()",
    "torch.manual_seed(0)",
    "fsdp = _OWNER_(torch.nn.Linear(3, 2).to(DEVICE), device_id=DEVICE)",
    "fsdp(torch.ones(1, 3, device=DEVICE)).sum().backward()",
)
#: torch.monitor: a stat that has seen two values, an event with a fixed time and data
RECIPES["torch._C._monitor.Stat"] = (
    'stat = _OWNER_("probe.stat", [torch.monitor.Aggregation.SUM, torch.monitor.Aggregation.COUNT], '
    "datetime.timedelta(seconds=60))",
    "stat.add(2.0)",
    "stat.add(3.5)",
)
RECIPES["torch._C._monitor.Event"] = (
    'event = _OWNER_("probe.event", datetime.datetime(2026, 1, 2, 3, 4, 5), {"loss": 0.5, "step": 3})',
)

#: distributions whose parameters must agree in shape or be positive definite (a covariance, a mixture)
_COV = "torch.tensor([[2.0, 1.0], [1.0, 3.0]], device=DEVICE)"
_D = "torch.distributions."
RECIPES.update(
    {
        # a module whose weight is parametrized by weight normalisation (a parametrization with a right inverse)
        "torch.nn.utils.parametrize.ParametrizationList": (
            "module = torch.nn.Linear(3, 2, device=DEVICE)",
            "torch.nn.utils.parametrizations.weight_norm(module)",
            "parametrizations = module.parametrizations.weight",
        ),
        _D + "multivariate_normal.MultivariateNormal": (
            "distribution = _OWNER_(torch.zeros(2, device=DEVICE), covariance_matrix=%s)" % _COV,
        ),
        _D + "lowrank_multivariate_normal.LowRankMultivariateNormal": (
            "distribution = _OWNER_(torch.zeros(2, device=DEVICE), torch.tensor([[1.0], [0.5]], device=DEVICE), "
            "torch.tensor([1.0, 2.0], device=DEVICE))",
        ),
        _D + "wishart.Wishart": (
            "distribution = _OWNER_(torch.tensor(3.0, device=DEVICE), covariance_matrix=%s)" % _COV,
        ),
        _D + "transformed_distribution.TransformedDistribution": (
            "distribution = _OWNER_(torch.distributions.Normal(torch.tensor([0.0, 1.0], device=DEVICE), "
            "torch.tensor([1.0, 2.0], device=DEVICE)), [torch.distributions.transforms.ExpTransform()])",
        ),
        _D + "independent.Independent": (
            "distribution = _OWNER_(torch.distributions.Normal(torch.zeros(2, device=DEVICE), "
            "torch.ones(2, device=DEVICE)), 1)",
        ),
        _D + "mixture_same_family.MixtureSameFamily": (
            "distribution = _OWNER_(torch.distributions.Categorical(torch.tensor([0.25, 0.75], device=DEVICE)), "
            "torch.distributions.Normal(torch.tensor([0.0, 1.0], device=DEVICE), torch.tensor([1.0, 2.0], "
            "device=DEVICE)))",
        ),
    }
)

_P = "torch.nn.utils.prune."
RECIPES.update(
    {
        _P + "L1Unstructured": _pruned('l1_unstructured(module, "weight", amount=0.5)'),
        _P + "RandomStructured": _pruned('random_structured(module, "weight", amount=0.5, dim=0)'),
        _P + "LnStructured": _pruned('ln_structured(module, "weight", amount=0.5, n=2, dim=0)'),
        _P + "Identity": _pruned('identity(module, "weight")'),
        _P + "CustomFromMask": _pruned(
            'custom_from_mask(module, "weight", mask=torch.tensor([[1.0, 0.0, 1.0], '
            "[0.0, 1.0, 0.0]], device=DEVICE))"
        ),
        _P + "PruningContainer": _pruned(
            'l1_unstructured(module, "weight", amount=0.5)',
            'random_structured(module, "weight", amount=0.5, dim=0)',
        ),
    }
)

#: further receivers, tried after the recipe: a parameter and a tensor that have a gradient
_BACKWARD = "(param * param).sum().backward()"
MORE_RECIPES = {
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

_TENSORS = (
    "torch.tensor([1.0, -2.0, 3.0], device=DEVICE)",
    "torch.arange(6.0, device=DEVICE).reshape(2, 3)",
    "torch.tensor(2.5, device=DEVICE)",
    "torch.zeros(0, device=DEVICE)",
)
#: argument values by category, most telling first
POOLS = {
    "tensor": _TENSORS,
    "tensors": (
        "[torch.ones(2, device=DEVICE), torch.arange(3.0, device=DEVICE)]",
        "[torch.full((2,), 5.0, device=DEVICE), torch.tensor([7.0, 8.0, 9.0], device=DEVICE)]",
        "(torch.tensor([1.0, 2.0], device=DEVICE),)",
    ),
    "int": ("1", "0", "2", "-1"),
    "bool": ("True", "False"),
    "float": ("0.5", "1.0", "-2.0"),
    "str": ('"x"', '"weight"', '""'),
    "none": ("None",),
    "dtype": ("torch.float32", "torch.int64", "torch.float16", "torch.bool"),
    "device": ("DEVICE",),
    "size": ("(2, 3)", "[3]", "()", "(3, 2)"),
    "sequence": ("[1, 2, 3]", "(1, 2)", "[]"),
    "dict": ('{"a": 1, "b": 2}', "{}"),
    # a function of no argument that pickles and is no torch builtin (an RPC runs it on its worker) last
    "callable": ("torch.relu", "lambda *args, **kwargs: None", "int"),
    "module": (
        "torch.nn.Linear(3, 2, device=DEVICE)",
        "torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU()).to(DEVICE)",
    ),
    "graph_module": (GRAPH_MODULE.split(" = ", 1)[1],),
    # models of one architecture (``stack_module_state``, an ensemble): two linear layers
    "modules": ("[torch.nn.Linear(3, 2, device=DEVICE) for _ in range(2)]",),
    "path": ('os.path.join(_TMP_, "item")', "_TMP_"),
    "tree": ('{"a": [1, 2], "b": (torch.ones(2, device=DEVICE), None)}', "[1, (2, 3)]"),
    "op": ("torch.ops.aten.add.Tensor", "torch.ops.aten.relu.default"),
    "class": ("torch.nn.ReLU", "torch.nn.Identity", "torch.nn.Linear", "torch.Tensor"),
    # a class of the test's own (a registry or a decorator changes it, not one of torch's), then torch's
    "fresh_class": (
        'type("Point", (), {"__module__": "__main__", "__annotations__": {"x": int, "y": int}, '
        '"x": 0, "y": 1})',
        "torch.nn.ReLU",
        "torch.Tensor",
    ),
    "bytes": ('b"\\x00\\x00\\x80?\\x00\\x00\\x00@"', "bytearray(8)"),
    "code": ("(lambda x: x + 1).__code__",),
    "functional_tensor": (
        "torch._to_functional_tensor(torch.tensor([1.0, -2.0, 3.0], device=DEVICE))",
    ),
    # one index tensor per indexed dim (``index_put_``), as a tuple, a list and alone
    "index_tuple": (
        "(torch.tensor([0, 2, 1], device=DEVICE),)",
        "[torch.tensor([2, 0, 1], device=DEVICE)]",
        "torch.tensor([0, 2, 1], device=DEVICE)",
    ),
    "tensor_lists": (
        "[[torch.ones(2, device=DEVICE), torch.arange(3.0, device=DEVICE)], "
        "[torch.zeros(2, device=DEVICE), torch.full((3,), 2.0, device=DEVICE)]]",
    ),
    "grad_tensor": (
        "torch.tensor([1.0, -2.0, 3.0], device=DEVICE, requires_grad=True) * 2",
        "torch.tensor([1.0, -2.0, 3.0], device=DEVICE, requires_grad=True)",
    ),
    "backend": ('"eager"', "lambda gm, example_inputs: gm.forward", '"aot_eager"'),
    # a linear-algebra input: square, symmetric, positive definite, well conditioned; then a batch of two
    "square_matrix": (
        "torch.tensor([[2.0, 1.0], [1.0, 3.0]], device=DEVICE)",
        "torch.tensor([[[2.0, 1.0], [1.0, 3.0]], [[4.0, 0.0], [0.0, 1.0]]], device=DEVICE)",
    ),
    # probabilities, each strictly between 0 and 1 (a distribution's ``probs``)
    "probs": ("torch.tensor([0.25, 0.5], device=DEVICE)", "torch.tensor(0.25, device=DEVICE)"),
    # an activation's name (``calculate_gain``, ``kaiming_uniform_``)
    "nonlinearity": ('"relu"', '"tanh"', '"leaky_relu"'),
    # a quantization-aware-training config (a QAT module asks for one)
    "qconfig": ('torch.ao.quantization.get_default_qat_qconfig("fbgemm")',),
    # a symbolic expression (a shape environment's ``replace(expr)``, ``simplify(expr)``)
    "sym_expr": (
        '__import__("sympy").Symbol("s0", positive=True, integer=True) + 1',
        '__import__("sympy").Integer(2)',
    ),
    # an RPC destination: the one worker of the probe's RPC agent, by name and by rank
    "store": ("torch.distributed.HashStore()",),
    "dynamo_source": ('torch._dynamo.source.LocalSource("x")',),
    "worker": ('"worker0"', "0"),
    # the probe's one-process group (its process-group pass)
    # another node of the receiver's traced graph (where the setup traced one), else a graph's own placeholder
    "fx_node": (
        "list(gm.graph.nodes)[0]",
        "list(gm.graph.nodes)[2]",
        'torch.fx.Graph().placeholder("y")',
    ),
    "process_group": ("torch.distributed.group.WORLD",),
    # two normal distributions of one shape (``kl_divergence(p, q)``)
    "distribution": (
        "torch.distributions.Normal(torch.tensor([0.0, 1.0], device=DEVICE), torch.tensor([1.0, 2.0], "
        "device=DEVICE))",
        "torch.distributions.Normal(torch.tensor([0.5, -1.0], device=DEVICE), torch.tensor([2.0, 0.5], "
        "device=DEVICE))",
    ),
    # the parts a fused module is made of (``LinearReLU(linear, relu)``, ``ConvBn2d(conv, bn)``): of each width
    "conv_layer": tuple("torch.nn.Conv%dd(2, 2, 1, device=DEVICE)" % n for n in (1, 2, 3)),
    "norm_layer": tuple("torch.nn.BatchNorm%dd(2, device=DEVICE)" % n for n in (1, 2, 3)),
    "linear_layer": ("torch.nn.Linear(3, 2, device=DEVICE)",),
    "relu_layer": ("torch.nn.ReLU()",),
    "leaky_relu_layer": ("torch.nn.LeakyReLU(0.1)",),
    "tanh_layer": ("torch.nn.Tanh()",),
    # a relaxed distribution's temperature: one positive number (it broadcasts with any parameter)
    "temperature": ("torch.tensor(0.5, device=DEVICE)",),
    # the order of a buffer's bytes (``from_buffer``): one that reads alike on every host first
    "byte_order": ('"little"', '"big"'),
    # a function of one tensor to a scalar, with a nonzero second derivative (``hvp``, ``hessian``)
    "scalar_fn": ("lambda x: (x ** 3).sum()",),
    # a function transform's primals and tangents: a tuple of one tensor each
    "tensor_tuple": (
        "(torch.tensor([1.0, -2.0, 3.0], device=DEVICE),)",
        "(torch.tensor([0.5, 1.0, -1.5], device=DEVICE),)",
    ),
}
#: setups binding a parameter of that name, tried when no call with the pools' values worked: parameters
#: that hold gradients (what ``clip_grad_value_`` and ``clip_grad_norm_`` act on)
NAMED_SETUPS = {
    "parameters": (
        "parameters = [torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0], device=DEVICE)), "
        "torch.nn.Parameter(torch.tensor([0.5, 4.0], device=DEVICE))]",
        "parameters[0].grad = torch.tensor([0.25, -3.0, 2.0], device=DEVICE)",
        "parameters[1].grad = torch.tensor([-0.5, 1.5], device=DEVICE)",
    ),
    # a checkpoint behind a file URL, and a folder to download it into (``load_state_dict_from_url``: no
    # network, and nothing written outside the probe's folder)
    "url": (
        'torch.save({"weight": torch.tensor([1.0, -2.0, 3.0])}, os.path.join(_TMP_, "weights.pt"))',
        'url = "file://" + os.path.join(_TMP_, "weights.pt")',
    ),
    "model_dir": ('model_dir = os.path.join(_TMP_, "checkpoints")',),
    # a batch of one 2-D affine matrix (a shear) and the 4-D size of its output grid (``affine_grid``)
    "theta": ("theta = torch.tensor([[[1.0, 0.5, 0.0], [0.0, 1.0, 0.25]]], device=DEVICE)",),
    "size": ("size = (1, 1, 2, 3)",),
    # a gradient bucket of a DDP model's backward (what a communication hook is given)
    "bucket": _GRAD_BUCKET,
    # a flat vector of as many values as those parameters hold (``vector_to_parameters(vec, parameters)``)
    "vec": ("vec = torch.tensor([2.0, 0.0, -1.0, 3.0, 5.0], device=DEVICE)",),
}
#: a value of no expected type: an invalid call
INVALID = "object()"

#: parameters given a class of the test's own first (what a registry or a class decorator changes)
FRESH_CLASS_NAMES = r"^(cls|klass|typ|type_|node_type)$"
#: parameter name -> category (checked in order, the first match wins)
NAME_HINTS = (
    (r"^(backend|compiler_fn)$", "backend"),
    (
        r"^(fn|func|function|f|callable|hook|callback|wrapper|factory|default_factory|predicate|"
        r"fx_fn|user_fn)$",
        "callable",
    ),
    (r"^(code|f_code|co|code_obj|code_object)$", "code"),
    (r"^(buffer|buf|data_bytes|raw|byte_data)$", "bytes"),
    (r"^(worker_name|dst_worker_name|owner_name)$", "worker"),
    (r"^probs$", "probs"),
    (r"^temperature$", "temperature"),
    (r"^(process_group|pg)$", "process_group"),
    (r"^byte_order$", "byte_order"),
    (r"^(store|\w+_store)$", "store"),
    (r"^source$", "dynamo_source"),
    (r"^(primals|tangents|cotangents)$", "tensor_tuple"),
    (r"^qconfig$", "qconfig"),
    (r"^nonlinearity$", "nonlinearity"),
    (r"^(expr|sympy_expr|orig_expr)$", "sym_expr"),
    (r"^(tensorlistlist|tensor_lists|nested_tensors)$", "tensor_lists"),
    (r"^indices$", "index_tuple"),
    (r"^(gm|graph_module)$", "graph_module"),
    (r"^conv$", "conv_layer"),
    (r"^(bn|batch_norm)$", "norm_layer"),
    (r"^linear$", "linear_layer"),
    (r"^relu$", "relu_layer"),
    (r"^leaky_relu$", "leaky_relu_layer"),
    (r"^tanh$", "tanh_layer"),
    (FRESH_CLASS_NAMES, "fresh_class"),
    (r"^(\w+_cls|\w+_class|module_type)$", "class"),
    (r"^(module|mod|model|root|submodule|net)$", "module"),
    (r"^(models|modules)$", "modules"),
    (
        r"^(tensors|inputs|tensor_list|args|outputs|grad_tensors|flat_args|batch|samples|params|parameters)$",
        "tensors",
    ),
    # a layer's widths are numbers, whatever their ending (``hidden_size``, ``in_channels``)
    (
        r"^(input_size|hidden_size|proj_size|embed_dim|in_channels|out_channels|in_features|out_features|"
        r"num_features)$",
        "int",
    ),
    (r"(shape|sizes?|strides?)$", "size"),
    (
        r"^(dim|dims|axis|in_dim|out_dim|level|index|idx|n|k|num\w*|count|rank|world_size|seed|step|"
        r"batch_size|num_replicas|priority|port|timeout|max_\w+|min_\w+|\w+_size|\w+_count)$",
        "int",
    ),
    (
        r"^(path|file|filename|dir|directory|folder|checkpoint_id|root_dir|\w*_path|\w*_dir)$",
        "path",
    ),
    (
        r"(name|prefix|key|qualname|attr|target|tag|group|suffix|label|msg|message|string|fmt|text|"
        r"backend_str|op_name)$",
        "str",
    ),
    (
        r"^(enabled?|mode|flag|strict|inplace|recurse|keep_vars|verbose|allow_\w+|use_\w+|is_\w+|"
        r"\w+_enabled|optional|check)$",
        "bool",
    ),
    (r"dtype$|^type$", "dtype"),
    (r"device$", "device"),
    (r"^(tree|pytree|obj|state_dict|structure|tree_spec)$", "tree"),
    (r"(dict|mapping|kwargs|options|config)$", "dict"),
    (r"^(tensor|input|inp|x|y|self|other|src|t|a|b|data|value|grad|weight|bias|out)$", "tensor"),
)
#: words of an annotation or a docstring type -> category
TYPE_HINTS = (
    (r"(List|Sequence|list)\[\s*([\w.]*\.)?(List|Sequence|list)\[", "tensor_lists"),
    (r"\bbool(ean)?\b", "bool"),
    (r"\bint(eger)?s?\b|\bSymInt\b", "int"),
    (r"\bfloat\b|\bnumber\b", "float"),
    (r"\bstr(ing)?\b", "str"),
    (r"\bNone\b|\bOptional\b|\boptional\b", "none"),
    (r"\bdtype\b", "dtype"),
    (r"\bdevice\b", "device"),
    (r"\bGraphModule\b", "graph_module"),
    (r"\bModule\b", "module"),
    (r"(List|Sequence|Tuple|Iterable|list|tuple)\[\s*(torch\.)?Tensor", "tensors"),
    (r"\bTensor\b", "tensor"),
    (r"\bSize\b|\bshape\b", "size"),
    (r"\bCallable\b|\bcallable\b", "callable"),
    (r"\bPyTree\b|\bpytree\b", "tree"),
    (r"\bdict\b|\bDict\b|\bMapping\b", "dict"),
    (r"^\s*(?:torch\.fx\.(?:node\.)?)?['\"]?Node['\"]?\s*$", "fx_node"),
    (r"\bProcessGroup\b", "process_group"),
    (r"\bDistribution\b", "distribution"),
    (r"\bOpOverload\b", "op"),
    (r"\b[Tt]ype\[", "class"),
    (
        r"^\s*(?:bytes|bytearray|(?:collections\.abc\.)?Buffer)\s*$",
        "bytes",
    ),  # bytes alone, not IO[bytes]
    (r"\bCodeType\b", "code"),
    (r"\bPath\b|\bPathLike\b|\bpath\b", "path"),
    (r"\blist\b|\btuple\b|\bSequence\b|\bList\b|\bTuple\b|\bIterable\b", "sequence"),
)
#: name categories that narrow an annotation's category, tried before it
NARROWING = ("probs", "temperature")
#: categories tried for a parameter nothing hints at
ANY = ("tensor", "int", "bool", "str", "none", "sequence", "dict")


def categories(name, annotation, doc_type, default_is_bool=False):
    """Categories of values worth trying for one parameter, most likely first."""
    found = []
    if default_is_bool:
        found.append("bool")
    for text in (annotation or "", doc_type or ""):
        for pattern, cat in TYPE_HINTS:
            if re.search(pattern, text) and cat not in found:
                found.append(cat)
    for pattern, cat in NAME_HINTS:
        if re.search(pattern, name or "") and cat not in found:
            # a name that narrows its annotation's kind (``probs: Tensor``: probabilities) comes first
            found.insert(0, cat) if cat in NARROWING else found.append(cat)
            break
    if not found or found == ["index_tuple"]:  # indices with no annotation: the general pools after
        found = found + [c for c in ANY if c not in found]
    if "class" in found and re.search(
        FRESH_CLASS_NAMES, name or ""
    ):  # ``cls: type``: a class of the test's own
        found = ["fresh_class"] + [c for c in found if c not in ("class", "fresh_class")]
    return found


def values_for(cats, limit=8):
    """Values of the categories: the first category's first two, then round-robin over all."""
    out = []
    first = list(POOLS.get(cats[0], ()))[:2] if cats else []
    pools = [list(POOLS.get(c, ())) for c in cats]
    for v in first:
        if v not in out:
            out.append(v)
    for rank in range(max([len(p) for p in pools] or [0])):
        for pool in pools:
            if rank < len(pool) and pool[rank] not in out:
                out.append(pool[rank])
    return out[:limit]


def spatial_dims(api_name):
    """1, 2 or 3 for an API named for that many spatial dims (``lp_pool2d``, ``conv_transpose3d``,
    ``ReflectionPad1d``, ``avg_pool2d.default``), else 0; ``atleast_2d`` makes its dims from any input."""
    m = re.search(r"(?<![0-9])([123])d(?:_|\.|$)", api_name or "")
    return 0 if not m or (api_name or "").startswith("atleast_") else int(m.group(1))


def spatial_input(n):
    """A batch of one with two channels and ``n`` 4-wide spatial dims, as source; "" for no dims."""
    return (
        "torch.arange(1.0, %d.0, device=DEVICE).reshape(1, 2%s)" % (2 * 4**n + 1, ", 4" * n)
        if n
        else ""
    )


def spatial_tensor(api_name):
    """The input of an API named for 1, 2 or 3 spatial dims, or ""."""
    return spatial_input(spatial_dims(api_name))


def var_name(class_name):
    """``StringTable`` -> ``string_table``: a receiver's variable in the test."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", class_name.strip("_")).lower()
    text = re.sub(r"[^a-z0-9_]+", "_", text).strip("_") or "obj"
    if text in ("self", "torch", "os", "result", "tmp", "api") or text[0].isdigit():
        text = "obj_" + text
    return text
