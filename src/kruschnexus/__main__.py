"""``python -m kruschnexus`` runs the ``nexus`` command line."""

from kruschnexus.cli.app import main

main()
