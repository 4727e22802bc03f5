"""`python -m webmcp_harness` runs the command line."""

from .cli import start

start()
