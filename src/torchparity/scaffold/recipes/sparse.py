"""Recipe data of the ``sparse`` family (``scaffold/sparse.py``): each sparse constructor's case."""

from __future__ import annotations

#: the modules the constructors are named under
MODULES = ("torch", "torch.sparse")
#: leaf -> (layout, constructor arguments, dense matrix, (accessor, values) it keeps, an invalid call's arguments)
CASES: dict[str, tuple[str, str, str, list[tuple[str, str]], str]] = {
    "sparse_coo_tensor": (
        "torch.sparse_coo",
        "torch.tensor([[0, 0, 1], [0, 2, 2]]), torch.tensor([1.0, 2.0, 3.0]), (2, 3)",
        "[[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]]",
        [
            ("coalesce().indices()", "[[0, 0, 1], [0, 2, 2]]"),
            ("coalesce().values()", "[1.0, 2.0, 3.0]"),
        ],
        "torch.tensor([[0, 0, 5], [0, 2, 2]]), torch.tensor([1.0, 2.0, 3.0]), (2, 3)",
    ),
    "sparse_csr_tensor": (
        "torch.sparse_csr",
        "torch.tensor([0, 2, 3]), torch.tensor([0, 2, 2]), torch.tensor([1.0, 2.0, 3.0]), (2, 3)",
        "[[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]]",
        [
            ("crow_indices()", "[0, 2, 3]"),
            ("col_indices()", "[0, 2, 2]"),
            ("values()", "[1.0, 2.0, 3.0]"),
        ],
        "torch.tensor([1, 2, 3]), torch.tensor([0, 2, 2]), torch.tensor([1.0, 2.0, 3.0]), (2, 3)",
    ),
    "sparse_compressed_tensor": (
        "torch.sparse_csr",
        "torch.tensor([0, 2, 3]), torch.tensor([0, 2, 2]), torch.tensor([1.0, 2.0, 3.0]), (2, 3), "
        "layout=torch.sparse_csr",
        "[[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]]",
        [
            ("crow_indices()", "[0, 2, 3]"),
            ("col_indices()", "[0, 2, 2]"),
            ("values()", "[1.0, 2.0, 3.0]"),
        ],
        "torch.tensor([1, 2, 3]), torch.tensor([0, 2, 2]), torch.tensor([1.0, 2.0, 3.0]), (2, 3), "
        "layout=torch.sparse_csr",
    ),
    "sparse_csc_tensor": (
        "torch.sparse_csc",
        "torch.tensor([0, 1, 1, 3]), torch.tensor([0, 0, 1]), torch.tensor([1.0, 2.0, 3.0]), (2, 3)",
        "[[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]]",
        [
            ("ccol_indices()", "[0, 1, 1, 3]"),
            ("row_indices()", "[0, 0, 1]"),
            ("values()", "[1.0, 2.0, 3.0]"),
        ],
        "torch.tensor([1, 1, 1, 3]), torch.tensor([0, 0, 1]), torch.tensor([1.0, 2.0, 3.0]), (2, 3)",
    ),
    "sparse_bsr_tensor": (
        "torch.sparse_bsr",
        "torch.tensor([0, 1]), torch.tensor([1]), torch.tensor([[[1.0, 2.0], [3.0, 4.0]]]), (2, 4)",
        "[[0.0, 0.0, 1.0, 2.0], [0.0, 0.0, 3.0, 4.0]]",
        [
            ("crow_indices()", "[0, 1]"),
            ("col_indices()", "[1]"),
            ("values()", "[[[1.0, 2.0], [3.0, 4.0]]]"),
        ],
        "torch.tensor([1, 1]), torch.tensor([1]), torch.tensor([[[1.0, 2.0], [3.0, 4.0]]]), (2, 4)",
    ),
    "sparse_bsc_tensor": (
        "torch.sparse_bsc",
        "torch.tensor([0, 1]), torch.tensor([1]), torch.tensor([[[1.0, 2.0], [3.0, 4.0]]]), (4, 2)",
        "[[0.0, 0.0], [0.0, 0.0], [1.0, 2.0], [3.0, 4.0]]",
        [
            ("ccol_indices()", "[0, 1]"),
            ("row_indices()", "[1]"),
            ("values()", "[[[1.0, 2.0], [3.0, 4.0]]]"),
        ],
        "torch.tensor([1, 1]), torch.tensor([1]), torch.tensor([[[1.0, 2.0], [3.0, 4.0]]]), (4, 2)",
    ),
}
