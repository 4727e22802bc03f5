# The two commands of the README. Both set everything up first, and both can be run again.
.PHONY: demo test setup lint

setup:
	@bash scripts/setup.sh

# Check the embedded demo shop's WebMCP conformance.
demo: setup
	.venv/bin/webmcp-harness check

# Lint, type-check and run the whole test suite.
test: setup lint
	.venv/bin/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder -q

lint:
	.venv/bin/ruff check src tests bench
	.venv/bin/ruff format --check src tests bench
	.venv/bin/mypy
