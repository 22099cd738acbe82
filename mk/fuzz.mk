# fuzz: libFuzzer harnesses for what reads untrusted or hand-written
# input: list mail up to the command (fuzz-intake), the OpenPGP packets
# of a signature before gpg sees them (fuzz-packets), the ledger
# (fuzz-ledger), the configuration (fuzz-conf) and the templates
# (fuzz-template).  `make fuzz` builds them with clang and runs each for
# FUZZ_SECONDS, every input within FUZZ_TIMEOUT (fuzz/run.sh); here they are linked with fuzz/replay.c
# instead of libFuzzer, so `make check` replays every seed and every
# input that once crashed (fuzz/corpus/NAME/) on this build, sanitizers
# included.
FUZZ_SECONDS = 60
# libFuzzer's -timeout for each input: a slower one fails the run.
FUZZ_TIMEOUT = 3
fuzz_harnesses = fuzz/fuzz-intake fuzz/fuzz-packets fuzz/fuzz-ledger \
	fuzz/fuzz-conf fuzz/fuzz-template
check_PROGRAMS += $(fuzz_harnesses)
fuzz_fuzz_intake_SOURCES = fuzz/fuzz-intake.c fuzz/fuzz.h fuzz/replay.c
fuzz_fuzz_packets_SOURCES = fuzz/fuzz-packets.c fuzz/fuzz.h fuzz/replay.c
fuzz_fuzz_ledger_SOURCES = fuzz/fuzz-ledger.c fuzz/fuzz.h fuzz/replay.c
fuzz_fuzz_conf_SOURCES = fuzz/fuzz-conf.c fuzz/fuzz.h fuzz/replay.c
fuzz_fuzz_template_SOURCES = fuzz/fuzz-template.c fuzz/fuzz.h fuzz/replay.c
fuzz_fuzz_intake_LDADD = $(TEST_LDADD)
fuzz_fuzz_packets_LDADD = $(TEST_LDADD)
fuzz_fuzz_ledger_LDADD = $(TEST_LDADD)
fuzz_fuzz_conf_LDADD = $(TEST_LDADD)
fuzz_fuzz_template_LDADD = $(TEST_LDADD)
TESTS += tests/t-fuzz-corpus.sh
dist_check_SCRIPTS += tests/t-fuzz-corpus.sh
EXTRA_DIST += fuzz/run.sh fuzz/make-seeds.sh fuzz/corpus

fuzz: all
	FUZZ_TIMEOUT=$(FUZZ_TIMEOUT) $(SHELL) $(srcdir)/fuzz/run.sh $(FUZZ_SECONDS)
.PHONY: fuzz
