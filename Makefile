# Facemouse: two commands on a fresh Debian/Ubuntu machine.
#   make run   installs what is missing, builds in release mode and starts the app
#   make test  installs what is missing and runs every test
SHELL := /bin/bash
.DEFAULT_GOAL := run

# Build: the OpenCV 4 modules Facemouse links (not the libopencv-dev meta package,
# which pulls 277 packages, VTK among them; .cargo/config.toml tells the opencv
# crate where they are, since only that meta package ships opencv4.pc), the Haar
# cascades, clang for the OpenCV bindings, v4l/udev for cameras.
# Run and test: X11/GL libraries for the window, Xvfb + xdotool + ImageMagick for the GUI tests.
# Package: dpkg-dev (dpkg-shlibdeps finds the shared-library dependencies), desktop-file-utils and appstream (the validators).
OPENCV_MODULES := core imgproc objdetect videoio imgcodecs calib3d
APT_PACKAGES := build-essential pkg-config clang libclang-dev $(foreach m,$(OPENCV_MODULES),libopencv-$(m)-dev) opencv-data \
	libv4l-dev libudev-dev libx11-dev libxi-dev libxtst-dev libxkbcommon-dev libxkbcommon-x11-0 \
	libxcursor1 libxrandr2 libgl1-mesa-dri libgl1-mesa-dev \
	xvfb xdotool x11-utils imagemagick python3 openbox desktop-file-utils \
	dpkg-dev appstream

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
CARGO ?= cargo
BIN := target/release/facemouse
COST_SECONDS ?= 20
HAVE_CARGO = command -v $(CARGO) >/dev/null || { echo "Rust is not installed: see https://rustup.rs, then run make again."; exit 1; }

.PHONY: run test deps fetch setup build bench cost fuzz clean deb

deps:
	@missing=""; for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "Installing system packages:$$missing"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@$(HAVE_CARGO)

# The crates are fetched while apt-get installs (it waits mostly on the
# network and dpkg).
fetch:
	@! command -v $(CARGO) >/dev/null || $(CARGO) fetch --quiet  # (without Rust, deps says so)

setup:
	@$(MAKE) --no-print-directory -j2 deps fetch

build: setup
	$(CARGO) build --release

run: build
	$(BIN) $(ARGS)

# The installable package: target/debian/facemouse_*.deb (binary, models, menus,
# demo, launcher, icons, AppStream metainfo: packaging/files), built with
# dpkg-deb, with its launcher and metainfo validated.
deb: build
	scripts/deb.sh
	desktop-file-validate packaging/io.github.facemouse.Facemouse.desktop
	appstreamcli validate --no-net packaging/io.github.facemouse.Facemouse.metainfo.xml
	@ls -1 target/debian/*.deb

# Tests run against the release build (the vision code is too slow unoptimised).
# A display is needed by the GUI and desktop tests: start Xvfb when there is none.
# scripts/test.sh builds every test once, then runs the X-display tests and the
# others in five groups at the same time.
test: setup
	@if [ -z "$$DISPLAY" ]; then \
		Xvfb :97 -screen 0 1280x800x24 -noreset -nolisten tcp >/dev/null 2>&1 & xvfb=$$!; \
		export DISPLAY=:97; sleep 1; \
		scripts/test.sh $(CARGO); status=$$?; kill $$xvfb 2>/dev/null; exit $$status; \
	else \
		scripts/test.sh $(CARGO); \
	fi

# The benchmarks are their own package (bench/), so that the tests do not build criterion.
bench: deps
	$(CARGO) bench -p facemouse-bench

# Mutation fuzzing of the profile and menu parsers, 100 000 cases (tests/fuzz.rs).
fuzz: deps
	FACEMOUSE_FUZZ_CASES=$${FACEMOUSE_FUZZ_CASES:-100000} $(CARGO) test --release --test all -- fuzz:: --nocapture

# CPU per thread: headless, window visible, window minimized (docs/performance.md).
cost: build
	scripts/cost.sh $(COST_SECONDS)

clean:
	$(CARGO) clean
