"""The numba search core: bitboards, position, move generation, search, hash table.

Everything in this package below the Python wrappers is plain functions over
typed NumPy arrays; python-chess objects never reach it.
"""
