"""The decomposition player: one alpha-beta tree searched by many Dask workers."""
