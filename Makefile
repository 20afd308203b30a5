# vlfs Makefile. `make test` works from a clean clone on a fresh Debian machine:
# it installs the Debian packages the tests need (when run as root) and lets
# Go fetch modules through go.mod.

GO        ?= go
PKGS      ?= ./...
IMAGE     ?= vlfs.img
MNT       ?= mnt
FUZZTIME  ?= 30s
DEB_PKGS  := fuse3 fio fuse2fs e2fsprogs

.PHONY: all build deps test test-short vet run fuzz bench figures clean

all: build

# deps installs what the tests and benchmarks use. Missing tools are installed
# only when we are root and apt-get exists; otherwise the tests that need them
# skip and say why.
deps:
	@missing=""; \
	command -v fusermount3 >/dev/null || missing="$$missing fuse3"; \
	command -v fio >/dev/null || missing="$$missing fio"; \
	command -v fuse2fs >/dev/null || missing="$$missing fuse2fs"; \
	command -v mkfs.ext4 >/dev/null || missing="$$missing e2fsprogs"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing:$$missing"; \
	    (apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "warning: missing$$missing (not root or no apt-get); FUSE tests will skip"; fi; \
	fi

build:
	$(GO) build -o bin/vlfs ./cmd/vlfs

vet:
	$(GO) vet $(PKGS)

test: deps build
	$(GO) vet $(PKGS)
	$(GO) test -count=1 -timeout 14m $(PKGS)

test-short: build
	$(GO) test -short -count=1 $(PKGS)

# run: the README's first command. Builds, creates a default image (st19101,
# 1 GiB) unless one exists, and mounts it at ./mnt in the foreground.
run: deps build
	@mkdir -p $(MNT)
	@[ -f $(IMAGE) ] || ./bin/vlfs mkfs --disk st19101 --size 1GiB $(IMAGE)
	@echo "mounting $(IMAGE) at ./$(MNT); use it from another shell, Ctrl-C to unmount"
	./bin/vlfs mount $(IMAGE) $(MNT)

fuzz:
	@for p in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$p 2>/dev/null | grep '^Fuzz'); do \
	    echo "== $$p $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$p || exit 1; \
	  done; done

bench: build
	./bin/vlfs bench locate --disk hp97560
	./bin/vlfs bench locate --disk st19101
	./bin/vlfs bench threshold --disk st19101
	$(GO) test -run '^$$' -bench . -benchtime 2000x ./vld/...

clean:
	rm -rf bin
