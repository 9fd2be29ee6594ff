"""Searches on threads of one process over shared memory, compiled with numba (Young Brothers
Wait's split points and the spinlock they take).  Apart from ``players.core``: a change here
changes a parallel player, not the sequential engine, so it leaves the engine's fingerprint
(``base.fingerprint``, which names the stores' searches) as it is."""
