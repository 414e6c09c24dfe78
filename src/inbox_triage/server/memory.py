"""Memory a long-running server hands back to the system."""

from __future__ import annotations

import asyncio
import ctypes

MEMORY_TRIM_INTERVAL_S = 30.0


async def start_memory_trimmer() -> None:
    """Hands memory freed by closed sessions back to the system now and then.

    Python's own memory stays flat under load, but glibc's allocator keeps what sessions
    freed, so RSS crept up in the soak benchmark; ``malloc_trim`` returns it. Elsewhere
    (no glibc) this does nothing.
    """
    try:
        libc = ctypes.CDLL("libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return

    async def trim_forever() -> None:
        while True:
            await asyncio.sleep(MEMORY_TRIM_INTERVAL_S)
            trim(0)

    _TRIMMERS.add(asyncio.get_running_loop().create_task(trim_forever()))


_TRIMMERS: set[asyncio.Task[None]] = set()
