"""The Dask runner's old import path: ``base.dask_runner`` is ``base.runner.dask`` itself (the
same module object, so a test that sets ``base.dask_runner.START_TIMEOUT_S`` sets the
runner's).  New code imports ``base.runner.dask``."""
import sys

from base.runner import dask as _dask

sys.modules[__name__] = _dask
