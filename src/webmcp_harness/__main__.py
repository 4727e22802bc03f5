"""`python -m webmcp_harness` runs the command line."""

from .cli import main

main()
