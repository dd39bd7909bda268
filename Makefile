# imgprep: build, test and demo on Debian 12 / Ubuntu.
# CI runs `bash .ci/run` without a login shell, so /etc/profile.d/swift.sh (which appends
# /opt/swift/usr/bin to PATH) is not read: fall back to the toolchain's absolute path.
SWIFT ?= $(or $(shell command -v swift 2>/dev/null),$(wildcard /opt/swift/usr/bin/swift),swift)
PREFIX ?= /usr/local
TEST_FLAGS ?=
FUZZ_SECONDS ?= 60
# The tests' release build. -enable-testing keeps @testable imports working in release.
# IMGPREP_TEST_HOOKS compiles the test hooks (IMGPREP_TEST_STALL, Pipeline/TestStall.swift) into this build
# only, and so into the imgprep built beside the test bundle, which the tests needing a hook run; the
# binary `make build` ships, which every other CLI test runs, has none.
RELEASE_FLAGS := -c release -Xswiftc -enable-testing -Xswiftc -DIMGPREP_TEST_HOOKS
# Where `make install` puts the man page and each shell's completions (each shell's own search path).
MANDIR ?= $(PREFIX)/share/man/man1
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
# The binary build, bench, install, demo and the Debian package use: the Swift runtime linked in, which
# halves every process's start (8 ms of CPU, not 15-19: the dynamic linker binds Swift's and Foundation's
# shared libraries at each start, and a batch starts its workers too). Built apart so it never invalidates
# the tests' .build/release (Swift Testing has no static library, so the tests cannot link this way).
STATIC_SCRATCH := .build/static
STATIC_BIN := $(STATIC_SCRATCH)/release/imgprep
BIN := $(STATIC_BIN)
# The checkout's path as "." in whatever the compilers record (debug info, #filePath), so the binary and
# the .deb have the same bytes wherever the sources are (scripts/deb-reproducible.sh).
PATH_MAP := -Xswiftc -file-prefix-map -Xswiftc $(CURDIR)=. -Xcc -ffile-prefix-map=$(CURDIR)=.

# Ubuntu (and its derivatives) name the libjpeg-turbo dev package differently from Debian.
JPEG_DEV := $(shell grep -Eqs '^ID(_LIKE)?=.*ubuntu' /etc/os-release && echo libjpeg-turbo8-dev || echo libjpeg62-turbo-dev)
# What compiling needs (and so every target that builds installs): the C libraries' headers, which pull in
# the libraries themselves, so the built binary runs where they are.
# libturbojpeg0-dev: TurboJPEG's tjTransform turns JPEGs losslessly. libwebp-dev: WebP in and out (decode,
# demux, mux). liblcms2-dev: --color srgb. libgif-dev: GIF in (giflib). libjxl-dev: JPEG XL in and out.
# libcurl4-openssl-dev: http(s) sources (libcurl, TLS through OpenSSL and the system CA store).
# libbrotli-dev: JPEG XL `brob` metadata boxes are decompressed by imgprep, capped as they grow.
# libdeflate-dev: PNG output's rows deflated again at efforts above zlib's level 9 (smaller than optipng -o2).
# libimagequant-dev: palette PNG, PNG's lossy mode (GPL-3.0-or-later, which the README says makes the binary).
# libde265-dev (libheif-dev's own dependency, named for its header): plain HEIC grids are decoded tile by tile with
# libde265, the HEVC decoder libheif uses, to keep their Y'CbCr planes (libheif 1.15 hands out only RGB).
BUILD_DEPS := pkg-config libheif-dev libde265-dev libexif-dev $(JPEG_DEV) libturbojpeg0-dev libpng-dev libwebp-dev liblcms2-dev libgif-dev libjxl-dev libbrotli-dev libdeflate-dev libimagequant-dev libcurl4-openssl-dev
# What the tests check with, on top: independent readers and tools.
# libjpeg-turbo-progs: jpegtran, the reference for lossless turns. webp and libavif-bin: dwebp and avifdec read
# outputs back. libheif-examples, exiftool, imagemagick, vips, libjxl-tools: references and fixture makers.
# python3-venv: the test-only venv (`make testenv`). zsh and fish: the completion tests run the generated
# scripts in them (bash is always there). openssl makes the tests' self-signed certificate.
# optipng: PNG output is checked to be no larger than optipng -o2 makes.
# chromium: the tests open pages of imgprep's <picture> markup and JPEG XL in a real browser.
TEST_DEPS := zsh fish libheif-examples libimage-exiftool-perl imagemagick libvips-tools libjpeg-turbo-progs webp libavif-bin jq python3-venv libjxl-tools chromium openssl optipng
DEPS := $(BUILD_DEPS) $(TEST_DEPS)
# cmake, ninja-build, libhwy-dev: building the reference ssimulacra2 for the metric rows (scripts/build-ssimulacra2.sh)
# optipng, pngquant, zopfli (zopflipng): the graphics rivals; valgrind, gnupg, python3-pip, adwaita-icon-theme,
# fish-common: the packages whose PNGs the graphics workload reads (scripts/bench-graphics.tsv).
BENCH_DEPS := libvips-tools imagemagick libheif-examples jpegoptim time webp jq python3 libjxl-tools curl cmake ninja-build libhwy-dev \
	optipng pngquant zopfli valgrind gnupg python3-pip adwaita-icon-theme fish-common
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

.PHONY: deps build-deps bench-deps testenv build test fuzz demo fixtures bench install install-files docs deb deb-test clean

deps:
	$(call apt_install,$(DEPS))

build-deps:
	$(call apt_install,$(BUILD_DEPS))

bench-deps:
	$(call apt_install,$(BENCH_DEPS))

build: build-deps
	@echo "building imgprep (release, the Swift runtime linked in; a few minutes the first time)"
	bash scripts/progress.sh $(SWIFT) build -c release --static-swift-stdlib --scratch-path $(STATIC_SCRATCH) --product imgprep $(PATH_MAP)

# A venv for the tests only, from PyPI: Pillow reads animations back (scripts/compare-animations.py),
# imagecodecs, which bundles libultrahdr, reads Ultra HDR JPEGs back (scripts/ultrahdr_reference.py), and
# ssimulacra2 (an independent numpy/scipy port) scores pictures beside ours (scripts/ssimulacra2_reference.py);
# thumbhash and blurhash decode the manifest's placeholders with code that is not ours; pillow-heif (its own
# libheif) decodes HEICs for the Y'CbCr path's checks (scripts/heif_reference.py).
# The tests that need it skip, saying so, when it is missing.
TESTENV := .venv-test
testenv: deps
	@if ! $(TESTENV)/bin/python -c 'import PIL, numpy, imagecodecs, pillow_heif, ssimulacra2, thumbhash, blurhash' 2>/dev/null; then \
	  echo "making $(TESTENV): Pillow, numpy, imagecodecs, pillow-heif, ssimulacra2, thumbhash, blurhash from PyPI (about a minute)"; \
	  python3 -m venv $(TESTENV) && $(TESTENV)/bin/pip install -q pillow numpy imagecodecs pillow-heif==1.8.1 ssimulacra2==0.3.0 thumbhash==0.1.2 blurhash==1.1.5; \
	else echo "$(TESTENV) already has Pillow, numpy, imagecodecs, pillow-heif, ssimulacra2, thumbhash and blurhash"; fi

# Release mode: the corpus tests decode and encode dozens of real photos, ~10x faster optimised.
# The CLI tests run the binary `make install` installs (so it is what is tested, and installing after
# the tests builds nothing; a test checks it has no hooks); the library tests link their own build.
# --disable-xctest: every test is Swift Testing, so XCTest's empty "Executed 0 tests" runs are left out.
# scripts/run-tests.sh ends with what was skipped and why.
test: deps testenv build
	@echo "building the tests (release; about 8 minutes of CPU the first time, most of it the test module) and running them"
	IMGPREP_TEST_BINARY=$(CURDIR)/$(BIN) bash scripts/run-tests.sh $(SWIFT) test --disable-xctest $(RELEASE_FLAGS) $(TEST_FLAGS)

# docs/cli.md and docs/imgprep.1 from the option tables (a test fails when the committed ones are stale).
# A debug build: quick and incremental, and the text is the same.
docs:
	$(SWIFT) build --product imgprep
	$$($(SWIFT) build --show-bin-path)/imgprep help --markdown > docs/cli.md.tmp && mv docs/cli.md.tmp docs/cli.md
	$$($(SWIFT) build --show-bin-path)/imgprep help --man > docs/imgprep.1.tmp && mv docs/imgprep.1.tmp docs/imgprep.1

# libFuzzer + AddressSanitizer over the parsers and the whole pipeline, FUZZ_SECONDS per target
# (scripts/fuzz.sh; docs/behaviour.md's "Fuzzing" section says what it covers and what it found).
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/fuzz.sh

# The everyday job on a phone-sized HEIC (12 MP, stored sideways, EXIF with GPS; scripts/make-demo-fixture.sh):
# an upright JPEG of at most 2048 pixels with its metadata, then what `info` reads from it.
demo: build
	@mkdir -p out
	$(BIN) convert Tests/Fixtures/demo/phone-photo.heic --max-dimension 2048 --to jpeg -o out/
	$(BIN) info out/phone-photo.jpg
	@echo "The upright JPEG is out/phone-photo.jpg (from Tests/Fixtures/demo/phone-photo.heic)."

fixtures: deps
	bash scripts/make-fixtures.sh

# Writes docs/benchmark.md, the whole page (machine, versions, command lines, every table); never edit it by hand.
bench: bench-deps build
	IMGPREP=$(BIN) BENCH_TABLE=docs/benchmark.md bash scripts/bench.sh

install: build
	$(MAKE) --no-print-directory install-files INSTALL_BIN=$(BIN)

# The binary INSTALL_BIN, its man page and completions (written by the binary itself) under DESTDIR.
install-files:
	install -D -m 755 $(INSTALL_BIN) $(DESTDIR)$(PREFIX)/bin/imgprep
	install -d $(DESTDIR)$(MANDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	$(INSTALL_BIN) help --man > $(DESTDIR)$(MANDIR)/imgprep.1
	$(INSTALL_BIN) completions bash > $(DESTDIR)$(BASHCOMPDIR)/imgprep
	$(INSTALL_BIN) completions zsh > $(DESTDIR)$(ZSHCOMPDIR)/_imgprep
	$(INSTALL_BIN) completions fish > $(DESTDIR)$(FISHCOMPDIR)/imgprep.fish
	chmod 644 $(DESTDIR)$(MANDIR)/imgprep.1 $(DESTDIR)$(BASHCOMPDIR)/imgprep $(DESTDIR)$(ZSHCOMPDIR)/_imgprep $(DESTDIR)$(FISHCOMPDIR)/imgprep.fish

# imgprep_VERSION_amd64.deb for Debian 12: the Swift runtime linked in statically, Depends computed by
# dpkg-shlibdeps from the binary, the licences in its copyright file, the same bytes from the same
# commit wherever it is built (scripts/build-deb.sh).
deb: build
	$(call apt_install,dpkg-dev)
	bash scripts/build-deb.sh $(STATIC_BIN)

# Installs the package into a bare Debian 12 tree (debootstrap minbase, cached in .build/) with the
# Dockerfile's apt step and runs it there (scripts/deb-test.sh), then builds HEAD's package twice, in two
# fresh clones, and requires the same bytes (scripts/deb-reproducible.sh: two release builds, 7-8
# minutes on a busy 2-core machine; 10 in all). Needs root and the network, so not in .ci/run: run it
# before a release and after changing linked libraries or the build.
deb-test: deb
	$(call apt_install,debootstrap)
	bash scripts/deb-test.sh $(STATIC_BIN)
	bash scripts/deb-reproducible.sh

# --one-file-system: never into a /proc or /sys a killed deb-test left mounted in its Debian tree.
clean:
	rm -rf --one-file-system .build out imgprep_*.deb $(TESTENV)
