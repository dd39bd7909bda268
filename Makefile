# imgprep: build, test and demo on Debian 12 / Ubuntu.
# CI runs `bash .ci/run` without a login shell, so /etc/profile.d/swift.sh (which appends
# /opt/swift/usr/bin to PATH) is not read: fall back to the toolchain's absolute path.
SWIFT ?= $(or $(shell command -v swift 2>/dev/null),$(wildcard /opt/swift/usr/bin/swift),swift)
PREFIX ?= /usr/local
TEST_FLAGS ?=
FUZZ_SECONDS ?= 60
BIN := .build/release/imgprep

# Ubuntu (and its derivatives) name the libjpeg-turbo dev package differently from Debian.
JPEG_DEV := $(shell grep -Eqs '^ID(_LIKE)?=.*ubuntu' /etc/os-release && echo libjpeg-turbo8-dev || echo libjpeg62-turbo-dev)
# libturbojpeg0-dev: TurboJPEG's tjTransform turns JPEGs losslessly; libjpeg-turbo-progs: jpegtran, the tests' reference for it.
# libwebp-dev: WebP in and out (decode, demux, mux); liblcms2-dev: --color srgb. webp and libavif-bin: dwebp and avifdec, independent decoders the tests read outputs back with.
# libgif-dev: GIF in (giflib). python3-venv: the test-only venv (`make testenv`): Pillow reads animations
# back, imagecodecs (it bundles libultrahdr) reads Ultra HDR JPEGs back: readers that are not ours.
DEPS := pkg-config libheif-dev libexif-dev $(JPEG_DEV) libturbojpeg0-dev libpng-dev libwebp-dev liblcms2-dev libgif-dev libheif-examples libimage-exiftool-perl imagemagick libvips-tools libjpeg-turbo-progs webp libavif-bin jq python3-venv
BENCH_DEPS := libvips-tools imagemagick libheif-examples jpegoptim time webp jq python3
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

# Install only the packages dpkg does not list as installed, so a prepared machine skips apt entirely.
define apt_install
	@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  $(SUDO) apt-get update -q && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	else echo "packages already installed: $(1)"; fi
endef

.PHONY: deps bench-deps testenv build test fuzz demo fixtures bench install clean

deps:
	$(call apt_install,$(DEPS))

bench-deps:
	$(call apt_install,$(BENCH_DEPS))

build:
	$(SWIFT) build -c release

# A venv for the tests only, from PyPI: Pillow reads animations back (scripts/compare-animations.py) and
# imagecodecs, which bundles libultrahdr, reads Ultra HDR JPEGs back (scripts/ultrahdr_reference.py).
# The tests that need it skip, saying so, when it is missing.
TESTENV := .venv-test
testenv: deps
	@if ! $(TESTENV)/bin/python -c 'import PIL, numpy, imagecodecs' 2>/dev/null; then \
	  python3 -m venv $(TESTENV) && $(TESTENV)/bin/pip install -q pillow numpy imagecodecs; \
	else echo "$(TESTENV) already has Pillow, numpy and imagecodecs"; fi

# Release mode: the corpus tests decode and encode dozens of real photos, ~10x faster optimised.
# -enable-testing keeps @testable imports working in release.
test: deps testenv
	$(SWIFT) test -c release -Xswiftc -enable-testing $(TEST_FLAGS)

# libFuzzer + AddressSanitizer over the parsers and the whole pipeline, FUZZ_SECONDS per target
# (scripts/fuzz.sh; docs/behaviour.md's "Fuzzing" section says what it covers and what it found).
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/fuzz.sh

# Converts the bundled good samples only; the broken ones live in Tests/Fixtures/bad/.
demo: deps build
	mkdir -p out
	$(BIN) convert Tests/Fixtures/heic/*.heic --to jpeg -o out/

fixtures: deps
	bash scripts/make-fixtures.sh

# Writes docs/benchmark.md, the whole page (machine, versions, command lines, every table); never edit it by hand.
bench: bench-deps build
	BENCH_TABLE=docs/benchmark.md bash scripts/bench.sh

install: build
	install -D -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/imgprep

clean:
	rm -rf .build out $(TESTENV)
