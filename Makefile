# One entry point for authors and CI. `make help` lists the targets.
# A fresh machine with Python 3.11 needs only `make serve` (preview) or `make test` (every test):
# each creates .venv and installs what it needs first.

PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
# Browser tests drive this Chromium; Debian's package puts it here.
CHROMIUM ?= /usr/bin/chromium
export NO_MKDOCS_2_WARNING := 1

.DEFAULT_GOAL := help
.PHONY: help serve build test test-fast lint check-posts new-post schema deploy browser clean

help: ## List the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

$(BIN)/.site-deps: requirements.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

# KaTeX and Mermaid (served by the site itself) and axe-core (injected by the accessibility tests),
# from the npm registry at the versions package-lock.json records.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(BIN)/.test-deps: $(BIN)/.site-deps requirements-test.txt
	$(BIN)/python -m pip install --quiet -r requirements-test.txt
	touch $@

serve: $(BIN)/.site-deps node_modules/.installed ## Preview the site at http://127.0.0.1:8000 with live reload
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

build: $(BIN)/.site-deps node_modules/.installed ## Build the site strictly into site/
	$(BIN)/mkdocs build --strict

test: $(BIN)/.test-deps node_modules/.installed browser ## Install everything, then run the linter and every test
	$(BIN)/ruff check hooks tests examples
	CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest

test-fast: $(BIN)/.test-deps ## The rules and the build wiring only, no browser or companion code (about a minute)
	$(BIN)/python -m pytest -m "not slow" -q

lint: $(BIN)/.test-deps ## Run ruff on hooks, tests and examples
	$(BIN)/ruff check hooks tests examples

check-posts: $(BIN)/.site-deps ## Check every post's front matter without building
	$(BIN)/python hooks/post_cli.py check

new-post: $(BIN)/.site-deps ## Scaffold a draft post: make new-post TITLE="..." CATEGORY="Kernel"
	@test -n "$(TITLE)" || { echo 'usage: make new-post TITLE="My title" CATEGORY="Kernel"'; exit 2; }
	$(BIN)/python hooks/post_cli.py new "$(TITLE)" --category "$(or $(CATEGORY),Machine Learning Performance)"

schema: $(BIN)/.site-deps ## Regenerate schemas/post-front-matter.schema.json
	$(BIN)/python hooks/post_cli.py schema --write

deploy: $(BIN)/.site-deps node_modules/.installed ## Build strictly and publish to the gh-pages branch of origin
	$(BIN)/mkdocs gh-deploy --strict

browser: ## Make sure Chromium is installed for the browser tests
	@if [ -x "$(CHROMIUM)" ]; then exit 0; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "Installing Debian's chromium for the browser tests..."; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
	  echo "The browser tests need Chromium at $(CHROMIUM)."; \
	  echo "Install it (Debian/Ubuntu: sudo apt-get install chromium) or run: make test CHROMIUM=/path/to/chromium"; \
	  exit 1; \
	fi

clean: ## Remove the built site and the virtual environment
	rm -rf site $(VENV) node_modules
