"""The base layer: configuration files, packaged resources, the error tree, signal handling,
the engine fingerprint and the Dask cluster.  Knows nothing of chess; every other layer may
import it and it imports none of them."""
