"""Recipe data of the ``data`` family (``scaffold/data.py``): the macro of ``templates/data.py.j2``
that tests each class or function of ``torch.utils.data``, by its last name."""

from __future__ import annotations

from typing import Any

#: class or function name -> (macro, extra arguments)
TEMPLATES: dict[str, tuple[str, dict[str, Any]]] = {
    "DataLoader": ("dataloader", {}),
    "TensorDataset": ("tensor_dataset", {}),
    "ConcatDataset": ("concat_dataset", {}),
    "Subset": ("subset", {}),
    "StackDataset": ("stack_dataset", {}),
    "ChainDataset": ("iterable_datasets", {"chain": True}),
    "IterableDataset": ("iterable_datasets", {"chain": False}),
    "Dataset": ("dataset_base", {}),
    "random_split": ("random_split", {}),
    "SequentialSampler": ("samplers", {"which": "sequential"}),
    "RandomSampler": ("samplers", {"which": "random"}),
    "SubsetRandomSampler": ("samplers", {"which": "subset_random"}),
    "WeightedRandomSampler": ("samplers", {"which": "weighted"}),
    "BatchSampler": ("samplers", {"which": "batch"}),
    "DistributedSampler": ("samplers", {"which": "distributed"}),
    "Sampler": ("samplers", {"which": "base"}),
    "default_collate": ("collate", {"convert": False}),
    "default_convert": ("collate", {"convert": True}),
    "get_worker_info": ("worker_info", {}),
}
