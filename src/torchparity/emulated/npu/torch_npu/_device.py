"""The emulated devices: how many there are, which one is current, and whether the runtime is up.

A real accelerator's runtime is initialised on first use and cannot be used
in a child forked after that: CUDA raises "Cannot re-initialize CUDA in
forked subprocess". The emulation keeps the same rule, so a process that
initialises the device and then forks is caught here as it would be on
hardware. Importing the package never initialises anything.
"""

import os
import threading

#: emulated devices when nothing says otherwise
DEFAULT_DEVICE_COUNT = 2
#: how many emulated devices the "machine" has (before ASCEND_RT_VISIBLE_DEVICES picks some)
COUNT_VARIABLE = "TORCH_NPU_EMULATED_DEVICE_COUNT"
#: the runtime's own visibility mask: a comma-separated list of device ids
VISIBLE_VARIABLE = "ASCEND_RT_VISIBLE_DEVICES"
#: "1": initialise the device while importing (a backend that breaks the fork rule, for tests)
INIT_ON_IMPORT_VARIABLE = "TORCH_NPU_EMULATED_INIT_ON_IMPORT"

BAD_FORK_MESSAGE = (
    "Cannot re-initialize NPU in forked subprocess. To use NPU with multiprocessing, you must use "
    "the 'spawn' start method (emulated NPU: the device was initialised in process %d before it "
    "forked this one)"
)


class _State(object):
    def __init__(self):
        self.lock = threading.RLock()
        self.initialized = False
        self.init_pid = None
        self.bad_fork = False
        self.parent_pid = None
        self.local = threading.local()


STATE = _State()


def physical_count():
    """Devices of the emulated machine (``TORCH_NPU_EMULATED_DEVICE_COUNT``, default 2)."""
    raw = os.environ.get(COUNT_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_DEVICE_COUNT
    try:
        count = int(raw)
    except ValueError:
        count = -1
    if count < 0:
        raise RuntimeError(
            "%s=%r: give a whole number of emulated NPU devices (0 or more)" % (COUNT_VARIABLE, raw)
        )
    return count


def visible_ids():
    """Physical ids the process may use, in the order ``ASCEND_RT_VISIBLE_DEVICES`` lists them.

    As with CUDA_VISIBLE_DEVICES, the list is read up to its first entry that is not a
    device id of this machine (not a number, out of range, or repeated)."""
    total = physical_count()
    raw = os.environ.get(VISIBLE_VARIABLE)
    if raw is None:
        return list(range(total))
    ids = []
    for part in raw.split(","):
        part = part.strip()
        if not part.isdigit() or int(part) >= total or int(part) in ids:
            break
        ids.append(int(part))
    return ids


def device_count():
    try:
        return len(visible_ids())
    except RuntimeError:
        return 0


def is_initialized():
    return STATE.initialized and not STATE.bad_fork


def in_bad_fork():
    return STATE.bad_fork


def lazy_init():
    """Bring the runtime up in this process (the first device use does it)."""
    if STATE.initialized:
        return
    with STATE.lock:
        if STATE.initialized:
            return
        if STATE.bad_fork:
            raise RuntimeError(BAD_FORK_MESSAGE % STATE.parent_pid)
        count = len(visible_ids())
        if count == 0:
            raise RuntimeError(
                "No NPU device is visible (emulated NPU: %s=%s, %s=%r)"
                % (
                    COUNT_VARIABLE,
                    physical_count(),
                    VISIBLE_VARIABLE,
                    os.environ.get(VISIBLE_VARIABLE),
                )
            )
        STATE.initialized = True
        STATE.init_pid = os.getpid()


def _after_fork_in_child():
    # a device brought up before fork is unusable in the child, as on hardware
    if STATE.initialized:
        STATE.bad_fork = True
        STATE.parent_pid = STATE.init_pid
    STATE.initialized = False
    STATE.lock = threading.RLock()
    STATE.local = threading.local()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def current_index():
    """The calling thread's current device (0 until set_device), as CUDA keeps it per thread."""
    return getattr(STATE.local, "index", 0)


def set_current_index(index):
    STATE.local.index = index


def check_index(index):
    """``index`` as a visible device ordinal, or a RuntimeError naming the visible ones."""
    count = device_count()
    if not 0 <= index < count:
        raise RuntimeError(
            "Invalid device ordinal npu:%d: %d NPU device(s) visible (emulated)" % (index, count)
        )
    return index
