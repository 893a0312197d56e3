"""``batch``: many APIs verified as ``verify`` does each, with shared workers, checkouts and index,
targets in parallel (locally or on a Ray cluster), progress, a summary, and resume."""

from .plan import BatchOptions
from .progress import BatchProgress
from .run import BatchOutcome, run_batch
from .tasks import TaskList, read_tasks

__all__ = ["BatchOptions", "BatchOutcome", "BatchProgress", "TaskList", "read_tasks", "run_batch"]
