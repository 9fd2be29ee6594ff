"""The wall clock's worker under its old name: :mod:`.worker` holds it (one job function,
``worker.run``, for every job); the names callers import from here stay importable."""
from .options import SearcherConfig
from .worker import (_JOBS, _SEARCHERS, IterationResult, JobResult, RunningJobs, create_local_table, drop_prefix,
                     noop, release_table, running_jobs, searcher_for, share_beta, stop_jobs, stoppable_search, warm)

__all__ = ["_JOBS", "_SEARCHERS", "IterationResult", "JobResult", "RunningJobs", "SearcherConfig", "create_local_table",
           "drop_prefix", "noop", "release_table", "running_jobs", "searcher_for", "share_beta", "stop_jobs",
           "stoppable_search", "warm"]
