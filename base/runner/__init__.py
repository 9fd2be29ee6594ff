"""The one way Concilio runs work: a :class:`Runner`, and what a worker keeps between jobs.

Every part that spreads work over processes or threads goes through a runner: the
ensemble's instances, the decomposition's master, matches, suites, labelling and the fit's
self-play.  A runner has ``workers`` *slots*, each running one job at a time:

* :class:`InlineRunner` (``inline``): one slot, this process; a job runs when it is
  submitted (tests, one core, the sequential reference).
* :class:`ThreadRunner` (``threads``): slots are threads of this process (a parallel search
  inside one process: its threads share memory).
* ``DaskRunner`` (``dask``, over the direct channels of ``channel``): slots are the threads
  of Dask workers; a job goes from here straight to its slot's worker and back, with no
  scheduler round trip.  Imported from ``base.runner.dask`` when wanted: this package
  itself does not load ``distributed``.

``protocol`` says what a runner is, ``state`` what a worker keeps between jobs (a
:class:`Resident`, stored in the :class:`WorkerState` of the runner whose job runs), ``feed``
how a runner of several slots maps jobs over them, and ``opening`` which runner a command
uses (:func:`open_runner`, :func:`borrowed_or_own`).  Nothing here knows of chess.
"""
from base.runner.feed import WORKER_RETURN_S, feed, report_failure
from base.runner.inline import Done, InlineRunner
from base.runner.opening import borrowed_or_own, open_runner
from base.runner.protocol import Job, Runner, SchedulerLost, WorkerLost
from base.runner.state import (Resident, StateClosed, WorkerState, _finish, close_item, current_state,  # noqa: F401
                               in_state, run_in_state)  # _finish: tests run a signal coroutine with it
from base.runner.threads import ThreadJob, ThreadRunner

__all__ = ["WORKER_RETURN_S", "Done", "InlineRunner", "Job", "Resident", "Runner", "SchedulerLost", "StateClosed",
           "ThreadJob", "ThreadRunner", "WorkerLost", "WorkerState", "borrowed_or_own", "close_item",
           "current_state", "feed", "in_state", "open_runner", "report_failure", "run_in_state"]
