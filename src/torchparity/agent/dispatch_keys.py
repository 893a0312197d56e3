"""The thread's dispatch-key state, saved before an API's facts and put back after.

Stdlib only (runs inside the environment under test; torch is passed in).
"""


def dispatch_tls(torch):
    """The thread-local dispatch keys included and excluded now ({} where this torch cannot tell)."""
    keys = getattr(torch._C, "DispatchKey", None)
    inc = getattr(torch._C, "_dispatch_tls_is_dispatch_key_included", None)
    exc = getattr(torch._C, "_dispatch_tls_is_dispatch_key_excluded", None)
    out = {}
    for name, key in (getattr(keys, "__members__", None) or {}).items():
        try:
            out[name] = (inc(key), exc(key))
        except Exception:
            continue
    return out


def restore_dispatch_tls(torch, saved):
    """Put back the dispatch keys an API's facts left included or excluded (a call of
    ``_enable_functionalization`` leaves ``Functionalize`` included); the names of those put back."""
    changed = []
    keys = getattr(torch._C, "DispatchKey", None)
    for name, value in dispatch_tls(torch).items():
        if name not in saved or saved[name] == value:
            continue
        key = getattr(keys, name)
        try:
            torch._C._dispatch_tls_set_dispatch_key_included(key, saved[name][0])
            torch._C._dispatch_tls_set_dispatch_key_excluded(key, saved[name][1])
            changed.append(name)
        except Exception:
            continue
    return changed
