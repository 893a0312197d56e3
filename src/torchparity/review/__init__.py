"""Review a submitted PR description: its claims checked against the repository, one verdict each.

``review_text`` parses the text (``parse_text``) and checks every claim at the
merge commit or a head; ``build_statement`` makes the in-toto test-result
statement of a run that ``review --attestation`` checks.
"""

from .attest import PREDICATE_TYPE, attest_run, build_statement, write_attestation
from .parse import parse_text
from .records import CONTRADICTED, UNVERIFIABLE, VERIFIED, Claims, Review, Verdict
from .review import read_text, review_text

__all__ = [
    "CONTRADICTED",
    "PREDICATE_TYPE",
    "UNVERIFIABLE",
    "VERIFIED",
    "Claims",
    "Review",
    "Verdict",
    "attest_run",
    "build_statement",
    "parse_text",
    "read_text",
    "review_text",
    "write_attestation",
]
