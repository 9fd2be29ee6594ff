"""The engine fingerprint that keys stored searches: blind to comments and docstrings,
not to code."""
from base.fingerprint import engine_fingerprint, normalised_source

CODE = '''
def f(x):
    """Why f."""
    return x + 1  # one more
'''


def test_comments_docstrings_and_layout_do_not_change_the_source():
    reworded = 'def f(x):\n    """Another reason, at length."""\n\n    # nothing to see\n    return x + 1\n'
    assert normalised_source(CODE) == normalised_source(reworded)
    bare = "def f(x):\n    return x + 1\n"
    assert normalised_source(CODE) == normalised_source(bare)
    only_doc = 'def g():\n    """Nothing but a docstring."""\n'
    assert normalised_source(only_doc) == normalised_source("def g():\n    pass\n")


def test_a_change_to_the_code_changes_the_source():
    assert normalised_source(CODE) != normalised_source(CODE.replace("x + 1", "x + 2"))
    assert normalised_source(CODE) != normalised_source(CODE.replace("x + 1", "1 + x"))


def test_the_fingerprint_is_short_hex_and_stable():
    fp = engine_fingerprint()
    assert len(fp) == 12 and int(fp, 16) >= 0
    engine_fingerprint.cache_clear()
    assert engine_fingerprint() == fp


def test_suite_budgets_carry_the_engine():
    from tournaments.suite.config import load_suite
    config = load_suite("smoke")
    assert config.budget_key.endswith(f" engine={engine_fingerprint()}")
