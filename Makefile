# SPDX-License-Identifier: GPL-2.0
#
# kvbench - top-level entry points.
#
#   make            build the module against KDIR (default: the running
#                   kernel's headers when present, else the VM's kernel)
#   make check      build everything and run every test suite
#   make bench      build everything and run the benchmark
#   make lint       the static gates alone (tools/lint/lint.sh)
#
# On a machine that cannot load modules into its own kernel, check and bench
# boot a stock Debian kernel under QEMU (tools/vm/). NATIVE=1 forces a run on
# this machine's own kernel; NATIVE=0 forces the VM.

VM	:= $(CURDIR)/tools/vm/kvbench-vm

ifeq ($(origin KDIR),undefined)
  ifneq ($(wildcard /lib/modules/$(shell uname -r)/build/Makefile),)
    KDIR := /lib/modules/$(shell uname -r)/build
  else
    KDIR = $(shell $(VM) kdir)
  endif
endif

.PHONY: all module clean check bench tools selftests lint

all: module

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-$(MAKE) -C tools/kvbench clean
	-$(MAKE) -C selftests/kvbench clean

check:
	@$(CURDIR)/tools/vm/check.sh

bench:
	@$(CURDIR)/tools/vm/bench.sh

lint:
	@$(CURDIR)/tools/lint/lint.sh
