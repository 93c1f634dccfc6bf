"""The ``jiyi`` command line: one module per command group."""
