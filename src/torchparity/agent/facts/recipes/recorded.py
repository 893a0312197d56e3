"""Recipe data of the ``recorded`` family's facts (``recorded.py``): operators that take another's calls.

Python 3.8 syntax: this module is shipped to the agent.
"""

from __future__ import annotations

from typing import Dict, Tuple

#: an operator no recorded call reaches -> the operators whose recorded calls it is given instead
#: (a view or a copy of the same values, or the public function that calls it), tried in order
TAKES_CALLS_OF: Dict[str, Tuple[str, ...]] = {
    "_reshape_alias": ("view", "as_strided"),
    "_lazy_clone": ("clone",),
    "alias": ("clone", "view"),
    "lift_fresh": ("clone",),
    "_neg_view": ("neg",),
    "absolute": ("abs",),
    "_unsafe_view": ("view",),
    "detach": ("clone",),
    "_to_copy": ("to",),
    "resize": ("resize_",),
    "_scaled_dot_product_attention_math": ("scaled_dot_product_attention",),
    "_fused_sdp_choice": ("scaled_dot_product_attention",),
    "_sparse_broadcast_to": ("broadcast_to",),
    "_spdiags": ("spdiags",),
}
