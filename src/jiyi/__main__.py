"""``python -m jiyi`` runs the CLI."""

from .cli.app import main

main()
