# The two commands of the quickstart: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SHARED := ../shared/conformance

.PHONY: demo test venv chromium kubectl sync-conformance bench profile clean krew

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

venv: $(VENV)/.installed

demo: venv
	$(BIN)/kwhatif schedule -c samples/cluster.yaml --now 2026-01-01T00:00:00Z || true
	$(BIN)/kwhatif place samples/pods/ -c samples/cluster.yaml --now 2026-01-01T00:00:00Z || true
	$(BIN)/kwhatif explain shop/checkout-7d9f8-pending -c samples/cluster.yaml --now 2026-01-01T00:00:00Z || true

test: venv chromium kubectl
	$(BIN)/python -m mypy
	$(BIN)/python -m pytest -n 2 tests

# $(call apt-optional,PACKAGE,TESTS): an optional system package some tests need (they skip
# without it), installed only as root with apt-get and when missing; a failure never stops the
# build, it says why.
define apt-optional
	@if command -v $(1) >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then \
		echo "$(1) not installed (needs root and apt-get): $(2) will skip"; \
	else \
		echo "installing $(1) for $(2) (apt-get install $(1))"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(1) >/dev/null; } \
			|| echo "could not install $(1) (apt-get failed): $(2) will skip"; \
	fi
endef

# Headless Chromium for tests/cli/test_html_chromium.py.
chromium:
	$(call apt-optional,chromium,the HTML rendering test)

# Debian's kubectl for tests/cli/test_snapshot.py (run against a fake API server on 127.0.0.1).
kubectl:
	$(call apt-optional,kubectl,the live-snapshot tests)

# Refresh the copy of the reference cases when ../shared is present (the cases grow over time).
sync-conformance:
	@if [ -d $(SHARED) ]; then \
		for d in targeted random config volumes dra; do \
			mkdir -p tests/conformance/cases/$$d; \
			cp $(SHARED)/$$d/* tests/conformance/cases/$$d/; \
		done; echo "conformance cases refreshed from $(SHARED)"; \
	else echo "no $(SHARED): keeping the committed copy"; fi

# The krew plugin: dist/kubectl-whatif-vX.Y.Z.tar.gz (reproducible) and plugins/whatif.yaml, its
# manifest (commit it). A release uploads the archive at the manifest's uri (docs/live.md).
krew: venv
	$(BIN)/python -m tools.krew

bench: venv
	$(BIN)/python bench/run.py

# A sampled profile of the whole benchmark (flame graph in bench/profile.svg).
profile: venv
	$(BIN)/python -m pip install --quiet -e '.[profile]'
	$(BIN)/py-spy record --rate 200 --output bench/profile.svg -- $(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) build *.egg-info
