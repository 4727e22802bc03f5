# The two commands of the README. Both set everything up first, and both can be run again.
.PHONY: demo test test-fast setup lint

setup:
	@bash scripts/setup.sh

# Check the embedded demo shop's WebMCP conformance.
demo: setup
	.venv/bin/webmcp-harness check

# Lint, type-check and run the whole test suite; name the ten slowest tests at the end.
test: setup lint
	.venv/bin/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder -q --durations=10

# The inner loop, in under 2 minutes: the tests that start no browser, and a small browser smoke
# set (the adapters' pins, the plugin on a page, the CLI's tools, call and check).
FAST_UNIT = tests/core tests/agent/test_kinds.py tests/agent/test_transcript.py \
	tests/testing/test_demo.py tests/test_faces.py tests/test_layers.py
FAST_SMOKE = tests/test_adapters.py \
	tests/plugin/test_plugin.py::test_a_user_test_file_without_conftest_gets_the_fixture_and_coded_results \
	tests/cli/test_cli.py::test_tools_json_is_one_document \
	tests/cli/test_cli.py::test_call_json_is_one_document_and_a_coded_failure_exits_0 \
	tests/cli/test_cli.py::test_check_json_prints_the_report_on_stdout_and_json_report_writes_it
test-fast: setup
	.venv/bin/python -m pytest -n 2 -q --durations=5 $(FAST_UNIT) $(FAST_SMOKE)

lint:
	.venv/bin/ruff check src tests bench
	.venv/bin/ruff format --check src tests bench
	.venv/bin/mypy
