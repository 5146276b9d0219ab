# softdoca top-level build. Two flavors (host, dpu) from one source tree:
#   build/host, build/dpu          optimized builds (programs, libraries, stage/)
#   build/asan-host, build/asan-dpu  the same under ASan+UBSan, for the tests
# Each flavor is also installed into build/<flavor>/stage, which is what
# PKG_CONFIG_PATH points at to build DOCA programs outside this tree.
BUILD := $(CURDIR)/build
FLAVORS := host dpu
MESON ?= meson
NINJA ?= ninja

.PHONY: all deps build asan test demo bench clean help

all: build

help:
	@echo "make demo   build and run the lab on the default emulated BlueField"
	@echo "make test   build everything and run every test (plain and ASan+UBSan)"
	@echo "make bench  run the benchmarks (figures, not tests)"
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

build: $(foreach f,$(FLAVORS),$(BUILD)/$(f)/build.ninja)
	@for f in $(FLAVORS); do \
		$(NINJA) -C $(BUILD)/$$f && $(MESON) install -C $(BUILD)/$$f --quiet --no-rebuild || exit 1; \
	done

asan: $(foreach f,$(FLAVORS),$(BUILD)/asan-$(f)/build.ninja)
	@for f in $(FLAVORS); do \
		$(NINJA) -C $(BUILD)/asan-$$f && $(MESON) install -C $(BUILD)/asan-$$f --quiet --no-rebuild || exit 1; \
	done

test: build asan
	@./tests/run_all.sh $(BUILD)

demo: build
	@./scripts/demo.sh $(BUILD)

bench: build
	@./bench/run.sh $(BUILD)

clean:
	rm -rf $(BUILD)
