"""``DirectMLValidationError``: every broken DirectML rule of a descriptor, reported at once."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from datamove._errors import ValidationError, plural, show

__all__ = ["BufferSizeOverflowError", "DirectMLValidationError", "Violation"]

MAX_SHOWN = 20
"""The most violations ``str()`` of a :class:`DirectMLValidationError` lists, one a line.

A desc of a million empty outputs breaks a million rules; its message stays a few lines, and
``violations`` keeps them all.
"""


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule: its checklist id, the field it is about, the value there, and why.

    Parameters
    ----------
    rule : str
        The rule's id in the checklists of ``docs/directml.md`` (``"T5"``, ``"S4"``, ``"J6"``).
    path : str
        The field, written as Python reaches it (``"outputs[1].sizes[2]"``); ``datamove dml
        check`` writes it as the JSON file names it (``"desc.OutputTensors[1].Sizes[2]"``).
    value : object
        The value found there.
    message : str
        What the rule asks, lower-case, read after ``path=value``.

    Examples
    --------
    >>> str(Violation("S4", "outputs[1].sizes[2]", 3, "must equal input.sizes[2]=2"))
    '[S4] outputs[1].sizes[2]=3 must equal input.sizes[2]=2'
    """

    rule: str
    path: str
    value: Any
    message: str

    def __str__(self) -> str:
        """``[RULE] path=value message``."""
        return f"[{self.rule}] {self.path}={show(self.value)} {self.message}"

    def to_dict(self) -> dict[str, Any]:
        """The violation as JSON-ready data (the value is kept only when JSON can hold it).

        The same method as ``datamove.ir``'s ``Problem.to_dict``.

        Examples
        --------
        >>> Violation("S3", "axis", 9, "must be in [0, 3]").to_dict()
        {'rule': 'S3', 'path': 'axis', 'value': 9, 'message': 'must be in [0, 3]'}
        """
        value = list(self.value) if isinstance(self.value, tuple) else self.value
        if not isinstance(value, str | int | float | list | None):
            value = show(value)
        return {"rule": self.rule, "path": self.path, "value": value, "message": self.message}


class DirectMLValidationError(ValidationError):
    """A DirectML descriptor breaks DirectML's rules; ``violations`` lists every one of them.

    ``argument`` and ``value`` are those of the first violation, so code written for
    :class:`datamove.ValidationError` keeps working; ``str()`` lists them one a line, the first
    ``MAX_SHOWN`` (20) of them, then how many more ``violations`` holds.

    Examples
    --------
    >>> err = DirectMLValidationError("DML_SPLIT", [
    ...     Violation("S3", "axis", 4, "must be in [0, 3]"),
    ...     Violation("T5", "outputs[0].sizes[1]", 0, "must be at least 1"),
    ... ])
    >>> print(err)
    DML_SPLIT: 2 violations of DirectML's rules
      [S3] axis=4 must be in [0, 3]
      [T5] outputs[0].sizes[1]=0 must be at least 1
    >>> [v.rule for v in err.violations]
    ['S3', 'T5']
    """

    def __init__(
        self, op: str, violations: list[Violation], *, context: str = "", hint: str | None = None
    ) -> None:
        if not violations:
            raise ValueError("DirectMLValidationError needs at least one violation")
        self.violations = list(violations)
        self.context = context
        count = len(violations)
        head = f"{plural(count, 'violation')} of DirectML's rules{context}"
        listing = "\n".join(f"  {v}" for v in violations[:MAX_SHOWN])
        if count > MAX_SHOWN:
            listing += f"\n  ... and {count - MAX_SHOWN} more (all in .violations)"
        super().__init__(op, None, violations[0].value, f"{head}\n{listing}", hint=hint)
        self.argument = violations[0].path

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with the violations."""
        rebuild = functools.partial(type(self), context=self.context, hint=self.hint)
        return (rebuild, (self.op, self.violations))


class BufferSizeOverflowError(DirectMLValidationError, OverflowError):
    """A tensor's buffer size does not fit DirectML's integers (also an ``OverflowError``)."""
