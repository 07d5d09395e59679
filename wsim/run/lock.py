"""The per-process kernel lock: one kernel call at a time from the Python API and Dask tasks.

numba's workqueue threading layer aborts the process when two threads enter it at once, and the
runner's own threads (wsim.run.runner) are only safe when one caller drives them. The lock is
re-entrant, so an API call that makes another API call inside it does not deadlock.
"""

import threading

KERNEL_LOCK = threading.RLock()
