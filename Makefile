# Two commands set everything up from a fresh clone: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
MANAGE := $(BIN)/python manage.py

.PHONY: run test lint format bench clean

# Runtime packages only, for `make run`.
$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e .
	touch $@

# Runtime plus test and lint tools, for `make test`.
$(VENV)/.installed-dev: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(VENV)/.installed $@

run: $(VENV)/.installed
	DJANGO_DEBUG=1 $(MANAGE) migrate --no-input
	DJANGO_DEBUG=1 $(MANAGE) load_demo
	DJANGO_DEBUG=1 $(MANAGE) runserver 127.0.0.1:$(PORT)

# The suite runs with production settings (debug off), which require a secret key.
test: export DJANGO_SECRET_KEY ?= test-only-secret-key
test: $(VENV)/.installed-dev
	$(BIN)/pytest $(PYTEST_ARGS)

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(VENV)/.installed-dev
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache
