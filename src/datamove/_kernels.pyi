# Type stub of the optional compiled part (built from csrc/; csrc/kernels.h has each function's
# contract): the copy engine's row loops and the operators' cached plans.

from collections.abc import Sequence
from typing import Any

STREAMING: int
SHUFFLE: int

def shuffle_counts() -> tuple[int, int, int, int, int, int]: ...
def copy_rows(
    parts: Sequence[tuple[int, int, int, int, int]], row0: int, row1: int, streaming: bool, /
) -> None: ...

ATOMIC_NIBBLES: int

def copy_nibble_rows(
    parts: Sequence[tuple[int, int, int, int, int, int, int]], row0: int, row1: int, /
) -> None: ...
def plan_key(ndarray: type, op: int, shape: tuple[int, ...], /, *params: Any) -> bytes | None: ...
def plan_hit(
    plans: dict[bytes, Any], ndarray: type, op: int, data: Any, /, *params: Any
) -> Any: ...
