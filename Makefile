# softdoca top-level build. Two flavors (host, dpu) from one source tree:
#   build/host, build/dpu          optimized builds (programs, libraries, stage/)
#   build/asan-host, build/asan-dpu  the same under ASan+UBSan, for the tests
#   build/tsan-host, build/tsan-dpu  under ThreadSanitizer, for the threaded suites
# Each flavor is also installed into build/<flavor>/stage, which is what
# PKG_CONFIG_PATH points at to build DOCA programs outside this tree.
BUILD := $(CURDIR)/build
FLAVORS := host dpu
MESON ?= meson
NINJA ?= ninja

.PHONY: all deps build asan tsan test demo bench soak conformance clean help install uninstall deb

all: build

help:
	@echo "make demo   build and run the lab on the default emulated BlueField"
	@echo "make test   build everything and run every test (plain, ASan+UBSan, and the"
	@echo "            threaded suites under ThreadSanitizer)"
	@echo "make bench  run the benchmarks (figures, not tests)"
	@echo "make soak   millions of checked Comch messages and DMA tasks (SOAK_SECONDS, default 180)"
	@echo "make conformance  build and run NVIDIA's doca-samples unchanged against both flavors"
	@echo "            (DOCA_SAMPLES_DIR=<checkout>; DOCA_DOCS_DIR=<API reference> also checks"
	@echo "            every function, enum, type and macro of the reference)"
	@echo "make install  both flavors side by side with DOCA's layout: \$$(DESTDIR)\$$(SOFTDOCA_ROOTS)/arm"
	@echo "            (dpu flavor) and .../host (SOFTDOCA_ROOTS default /opt/softdoca); with"
	@echo "            FLAVOR=host|dpu one flavor at PREFIX (default /opt/mellanox/doca)"
	@echo "make uninstall  remove what make install put there (same variables)"
	@echo "make deb    Debian packages (softdoca, softdoca-arm, softdoca-host) in build/deb/"
	@echo "make clean  remove build/"

deps:
	@./scripts/install-deps.sh

$(BUILD)/%/build.ninja: | deps
	$(MESON) setup $(BUILD)/$* --buildtype=debugoptimized -Dflavor=$* \
		-Dprefix=$(BUILD)/$*/stage -Dlibdir=lib \
		-Dpeer_build=$(BUILD)/$(if $(filter host,$*),dpu,host)

$(BUILD)/asan-%/build.ninja: | deps
	$(MESON) setup $(BUILD)/asan-$* --buildtype=debug -Dflavor=$* \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dprefix=$(BUILD)/asan-$*/stage -Dlibdir=lib \
		-Dpeer_build=$(BUILD)/asan-$(if $(filter host,$*),dpu,host)

$(BUILD)/tsan-%/build.ninja: | deps
	$(MESON) setup $(BUILD)/tsan-$* --buildtype=debug -Dflavor=$* \
		-Db_sanitize=thread -Db_lundef=false \
		-Dprefix=$(BUILD)/tsan-$*/stage -Dlibdir=lib \
		-Dpeer_build=$(BUILD)/tsan-$(if $(filter host,$*),dpu,host)

build: $(foreach f,$(FLAVORS),$(BUILD)/$(f)/build.ninja)
	@for f in $(FLAVORS); do \
		$(NINJA) -C $(BUILD)/$$f && $(MESON) install -C $(BUILD)/$$f --quiet --no-rebuild || exit 1; \
	done

asan: $(foreach f,$(FLAVORS),$(BUILD)/asan-$(f)/build.ninja)
	@for f in $(FLAVORS); do \
		$(NINJA) -C $(BUILD)/asan-$$f && $(MESON) install -C $(BUILD)/asan-$$f --quiet --no-rebuild || exit 1; \
	done

tsan: $(foreach f,$(FLAVORS),$(BUILD)/tsan-$(f)/build.ninja)
	@for f in $(FLAVORS); do \
		$(NINJA) -C $(BUILD)/tsan-$$f && $(MESON) install -C $(BUILD)/tsan-$$f --quiet --no-rebuild || exit 1; \
	done

test: build asan tsan
	@./tests/run_all.sh $(BUILD)

demo: build
	@./scripts/demo.sh $(BUILD)

bench: build
	@./bench/run.sh $(BUILD)

soak: build
	@./tests/soak/run_soak.sh $(BUILD)

# NVIDIA's programs, unmodified, against our flavors; and, given DOCA's API
# reference (Doxygen HTML or a git mirror of it), the surface check.
conformance: build
	@if [ -n "$(DOCA_DOCS_DIR)" ]; then \
		python3 tools/conformance/surface.py --docs "$(DOCA_DOCS_DIR)" \
			--include $(BUILD)/dpu/stage/include --missing || true; \
	fi
	@./tools/conformance/run_samples.sh $(BUILD)

# Installed trees (scripts/install.sh): each flavor is configured again in
# $(BUILD)/install-<flavor> with the tree's prefix and lib/<multiarch>.
SOFTDOCA_ROOTS ?= /opt/softdoca
PREFIX ?= /opt/mellanox/doca
FLAVOR ?=
DESTDIR ?=

install:
	@DESTDIR="$(DESTDIR)" MESON="$(MESON)" NINJA="$(NINJA)" ./scripts/install.sh install "$(BUILD)" \
		$(if $(FLAVOR),"$(PREFIX)" "$(FLAVOR)","$(SOFTDOCA_ROOTS)")

uninstall:
	@DESTDIR="$(DESTDIR)" ./scripts/install.sh uninstall \
		$(if $(FLAVOR),"$(PREFIX)" "$(FLAVOR)","$(SOFTDOCA_ROOTS)")

# Debian packages, built by dpkg-buildpackage from a copy of the sources in
# $(BUILD)/deb (the .deb files land there, never outside the build folder).
deb:
	@./scripts/build-deb.sh "$(BUILD)/deb"

clean:
	rm -rf $(BUILD)
