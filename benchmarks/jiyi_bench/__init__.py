"""jiyi-bench: the measurement harnesses behind ``jiyi bench ...`` and ``jiyi eval ...``.

They live outside the ``jiyi`` package so the library stays small and so they can only use what a
user can: :class:`jiyi.Memory`, the store Protocol (``jiyi.store``) and the embedder registry
(``jiyi.embed``). ``jiyi.cli`` registers their commands when this package is importable
(``pip install 'jiyi[eval]'``, or ``pip install -e ./benchmarks`` in a checkout).
"""
