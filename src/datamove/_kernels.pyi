# Type stub of the optional compiled row loop (src/datamove/_kernels.c).

from collections.abc import Sequence

STREAMING: int

def copy_rows(
    parts: Sequence[tuple[int, int, int, int, int]], row0: int, row1: int, streaming: bool, /
) -> None: ...

ATOMIC_NIBBLES: int

def copy_nibble_rows(
    parts: Sequence[tuple[int, int, int, int, int, int, int]], row0: int, row1: int, /
) -> None: ...
