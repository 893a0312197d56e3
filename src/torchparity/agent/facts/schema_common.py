"""What the kinds of facts of ``schema.py`` share: the failed-measurement record, scalars, exclusions.

Python 3.8 syntax: this module is shipped to the agent.
"""

from typing import TypedDict, Union

#: a number as JSON carries it (an int stays an int: a test writes it as measured)
Number = Union[int, float]
#: a global state's value as the agent's state registry reports it (``state._jsonable``)
StateValue = Union[bool, int, float, str, None]
#: a plain value passed to or returned by a call, written out literally
ScalarValue = Union[bool, int, float, str, None]


class Measured(TypedDict, total=False):
    """What every kind of fact may say: whether it found what it measures, and why not.

    A measurement that raised is only these two keys (``gather._guard``)."""

    found: bool
    problem: str


class Excluded(TypedDict, total=False):
    """A dtype left out of an OpInfo test, and why."""

    dtype: str
    reason: str
