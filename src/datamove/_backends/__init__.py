"""Array-library backends behind :mod:`datamove._compat` (private).

``_copy`` is the NumPy copy engine (``copy=True`` and ``out=`` at memory speed); ``_foreign``
holds every other library's quirks. Nothing here imports an array library at module scope.
"""
