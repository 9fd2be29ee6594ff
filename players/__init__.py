"""Players: the numba search core (``players.core``) and every kind of player built on it."""
from base.resources import share_numba_cache, use_user_numba_cache

use_user_numba_cache()
share_numba_cache()
