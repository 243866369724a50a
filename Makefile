# SPDX-License-Identifier: GPL-2.0
#
# kvbench - top-level entry points.
#
#   make            build the module against KDIR (default: the headers of
#                   the running kernel; without them, an error that says so)
#   make check      build everything and run every test suite: the gate
#                   every commit passes (tools/vm/check.sh says which set
#                   of suites runs on which kernel)
#   make check-long the longer tier: the full set on every kernel, the
#                   fuzzer and the load/unload cycles at their own lengths,
#                   the VM runner's own --out test
#   make bench      build everything and run the benchmark
#                   (BENCH_TRACE_STALL=US[:N]: the guest's trace frozen at
#                   the first (Nth) request over US microseconds comes back
#                   beside bench.json; Documentation/kvbench.rst,
#                   "Catching a stall")
#   make profile    one benchmark case under perf in the guest; the report
#                   comes back to results/ (PROFILE_ARGS="-b rcu -m get
#                   -t 2 --batch 1 -D 5s -r 1" by default, PROFILE_FREQ=999)
#   make icount     instructions per operation of every backend and call
#                   kind, under QEMU's deterministic -icount: figures the
#                   host's load cannot move (tools/vm/icount.sh);
#                   make icount-check compares NOP, GET and SET against
#                   the record tools/vm/icount-baseline.txt (fails on
#                   growth over ICOUNT_MARGIN, 3%), make icount-update
#                   rewrites it
#   make lint       the static gates alone (tools/lint/lint.sh)
#   make install    the tool and its man page: tools/kvbench's install,
#                   PREFIX (/usr/local) and DESTDIR as it takes them; the
#                   module is installed by dkms (dkms.conf) or by
#                   make -C $(KDIR) M=$PWD modules_install
#
# check, bench and profile boot stock Debian kernels under QEMU (tools/vm/), which
# build the module for those kernels themselves. NATIVE=1 runs them on
# this machine's own kernel instead, loading the module into it.

# The kernel `make` builds for by default (a test overrides it).
KVBENCH_RUNNING_KVER ?= $(shell uname -r)
RUNNING_BUILD := /lib/modules/$(KVBENCH_RUNNING_KVER)/build

ifeq ($(origin KDIR),undefined)
  ifneq ($(wildcard $(RUNNING_BUILD)/Makefile),)
    KDIR := $(RUNNING_BUILD)
  endif
endif

.PHONY: all module clean check check-long bench profile icount icount-check icount-update \
	tools selftests lint install

all: module

# A module for another kernel would only fail to load ("Invalid module
# format"): without headers for the running kernel, say what to do.
module:
ifeq ($(KDIR),)
	@echo "make: no headers for the running kernel $(KVBENCH_RUNNING_KVER) ($(RUNNING_BUILD) is missing):" >&2
	@echo "  install linux-headers-$(KVBENCH_RUNNING_KVER), or build for another kernel with" >&2
	@echo "  make KDIR=/lib/modules/<version>/build" >&2
	@false
else
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules
endif

clean:
ifneq ($(KDIR),)
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
else
	find module -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name 'modules.order' -o -name 'Module.symvers' | xargs rm -f
endif
	-$(MAKE) -C tools/kvbench clean
	-$(MAKE) -C selftests/kvbench clean

check:
	@$(CURDIR)/tools/vm/check.sh

check-long:
	@CHECK_TIER=long $(CURDIR)/tools/vm/check.sh

bench:
	@$(CURDIR)/tools/vm/bench.sh

profile:
	@$(CURDIR)/tools/vm/profile.sh

icount:
	@$(CURDIR)/tools/vm/icount.sh study

icount-check:
	@$(CURDIR)/tools/vm/icount.sh check

icount-update:
	@$(CURDIR)/tools/vm/icount.sh update

lint:
	@$(CURDIR)/tools/lint/lint.sh

# PREFIX and DESTDIR given on the command line reach the sub-make through
# MAKEFLAGS; from the environment, make passes them on as well.
install:
	$(MAKE) -C tools/kvbench install
