"""The seven knowledge categories (numba kernels), masks, weights and traces."""
from base.resources import use_user_numba_cache

use_user_numba_cache()
