"""What a name suggests: the one table of guesses by parameter name, and the one function reading it.

Where a value comes from, most trusted first; a guess by name is the last source:

1. PyTorch's own databases: an operator's OpInfo sample inputs (``opinfo.py``, ``overloads.py``,
   ``recorded.py``) and a module's ModuleInfo (``modules.py``);
2. the API's docstring examples (``doctest.py``);
3. type annotations and defaults: a parameter's annotation, its docstring type, its default (a boolean
   default: a boolean), the parameters a signature, a schema or an error message lists
   (``params.py``, ``probe_values.categories``), the values of a class an annotation names
   (``receivers.typed_values``);
4. a recipe: a receiver or an argument built the way a user builds it (``recipes/``), and what a
   failed call asked for (``asked.py``: the values it lists, the kind of value it wanted);
5. a guess by the parameter's name: ``guess`` over ``NAME_TABLE`` (this module), the only code that
   compares a parameter's name with a pattern to choose a value; then any value at all
   (``probe_values.ANY``).

Scaffold tries the families built on them in that order (``scaffold/families.py``: the OpInfo and
ModuleInfo families before the doctest one, that before the families measured on calls the agent
finds). Within the probe, a parameter's candidates (``arguments.candidates``) are: what the receiver's
setup made under its name and the values a failed call lists; the values of the classes its annotation
and docstring type name; then the pools of its categories, round-robin after the first one's first two:
the category a failed call asked for, its default's, its annotation's and docstring type's, the one its
name suggests, then any. Where a guess by name comes earlier, on purpose: a name that narrows its
annotation (``probs: Tensor``: probabilities; ``temperature``) puts its pool first
(``probe_values.NARROWING``); a distribution's ``value`` is given the distribution's own values, and an
API named for its spatial dims (``avg_pool2d``) an input, a kernel size and a weight of those dims,
right after the setup's values. A scenario lists the parameters whose value was a guess by name in its
facts (``"guessed"``), in the probe's facts and in the tensor kinds'.

A name may suggest several things (``size``: a shape for the probe's pools, the grid size of
``affine_grid`` for a named setup, a dense size for the tensor kinds): ``guess`` gives the first
category of the table that the asking stage has values for, so each stage reads the rows it knows, in
the table's order.

Everything here runs in the environment under test (Python 3.8, standard library only).
"""

from __future__ import annotations

import re
from typing import Container, Pattern, Tuple

#: parameter-name pattern -> the category of value the name suggests, checked in order (``guess``). Each
#: section's categories are read by the stage its comment names; those of the first one are the probe's
#: argument pools (``probe_values.NAME_POOLS``).
NAME_TABLE: Tuple[Tuple[str, str], ...] = (
    # -- the probe's pools (``probe_values.categories``): the first row it knows wins
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
    # indices: an index tuple for the probe, a sparse tensor's indices for the tensor kinds
    (r"^indices$", "indices"),
    (r"^(gm|graph_module)$", "graph_module"),
    (r"^conv$", "conv_layer"),
    (r"^(bn|batch_norm)$", "norm_layer"),
    (r"^linear$", "linear_layer"),
    (r"^relu$", "relu_layer"),
    (r"^leaky_relu$", "leaky_relu_layer"),
    (r"^tanh$", "tanh_layer"),
    # a class of the test's own (what a registry or a class decorator changes), before torch's classes
    (r"^(cls|klass|typ|type_|node_type)$", "fresh_class"),
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
    # -- what a named setup binds (``recipes.NAMED_SETUPS``), tried when no call with the pools worked
    (r"^parameters$", "parameters_with_grads"),
    (r"^url$", "file_url"),
    (r"^model_dir$", "download_dir"),
    (r"^theta$", "affine_theta"),
    (r"^size$", "grid_size"),
    (r"^bucket$", "grad_bucket"),
    (r"^vec$", "flat_vector"),
    # -- what the probe's receivers give (``scenarios``, ``arguments``)
    # the instance of a module class a static method is given, and an optimizer over its parameters
    (r"^(model|module|root_module)$", "owner_instance"),
    (r"^(optim|optimizer)$", "stepped_optimizer"),
    # a distribution's own values (in its support), a convolution's weight of the API's spatial dims
    (r"^value$", "distribution_value"),
    (r"^weight$", "conv_weight"),
    # -- a validator's second parameter that is its message, not an operand (``checker.py``)
    (r"msg|message|text", "message"),
    # -- the tensor kinds' values (``recipes/arguments.NAME_VALUES``); a tensor comes from the kinds
    (r"^(tensor_list|tensors|ts)$", "dense_tensor_list"),
    (r"^(dim|dims|axis)$", "dim"),
    (r"^(mod|module|model)$", "module_of_kind"),
    (r"^block_?size$", "block_size"),
    (r"(^size$|^shape$|_size$)", "dense_size"),
    (r"sizes$|shape_example$", "nested_sizes"),
    (r"^padding$|^value$|^fill_value$", "fill_value"),
    (r"mask$", "mask"),
    (r"^values$", "sparse_values"),
    (r"dtype$", "wider_dtype"),
    (r"^(scale)$", "quant_scale"),
    (r"zero_point", "zero_point"),
    # a name a tensor goes by: tensors first where nothing annotates it
    (
        r"^(self|input|x|t|tensor|src|other|the_template|a|b|mat\d*|padded|nt|inp|data|"
        r"\w*tensor\w*)$",
        "tensor_named",
    ),
)

_COMPILED: Tuple[Tuple[Pattern[str], str], ...] = tuple((re.compile(p), c) for p, c in NAME_TABLE)


def guess(name: str, known: Container[str]) -> str:
    """The category of the first row of ``NAME_TABLE`` matching ``name`` among ``known`` (the categories
    the asking stage has values for), or "": a guess by name, the last source of a value."""
    for pattern, category in _COMPILED:
        if category in known and pattern.search(name or ""):
            return category
    return ""


def spatial_dims(api_name: str) -> int:
    """1, 2 or 3 for an API named for that many spatial dims (``lp_pool2d``, ``conv_transpose3d``,
    ``ReflectionPad1d``, ``avg_pool2d.default``), else 0; ``atleast_2d`` makes its dims from any input."""
    m = re.search(r"(?<![0-9])([123])d(?:_|\.|$)", api_name or "")
    return 0 if not m or (api_name or "").startswith("atleast_") else int(m.group(1))
