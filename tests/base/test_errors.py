"""One base for every error about input or surroundings, so that the command line can
catch it once (exit 2) and no error of Concilio's escapes as a traceback."""
import importlib
import inspect
import pkgutil

from base.errors import ConcilioError

PACKAGES = ("base", "concilio", "ensemble", "evaluation", "players", "tournaments")
# not about input: a signal's stop (a KeyboardInterrupt), and a deadline inside a parallel search
NOT_INPUT = {"base.interrupts.Interrupted", "players.decomposition.wall.Aborted"}


def own_exceptions():
    for package in PACKAGES:
        for info in pkgutil.walk_packages(importlib.import_module(package).__path__, package + "."):
            if info.name.endswith("__main__"):
                continue
            module = importlib.import_module(info.name)
            for name, obj in vars(module).items():
                if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == info.name:
                    yield f"{info.name}.{name}", obj


def test_every_error_is_a_concilio_error():
    found = dict(own_exceptions())
    assert len(found) > 20 and NOT_INPUT <= set(found)  # the walk saw the code
    outside = sorted(name for name, cls in found.items() if not issubclass(cls, ConcilioError))
    assert outside == sorted(NOT_INPUT)
