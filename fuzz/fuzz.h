/* fuzz.h: the entry point every harness under fuzz/ defines.
 *
 * Built with clang -fsanitize=fuzzer (./configure --enable-fuzzing, see
 * fuzz/run.sh), libFuzzer supplies main() and calls the function with
 * inputs it makes.  Built by an ordinary `make check`, fuzz/replay.c
 * supplies main() instead and calls it once per file named on the
 * command line, so the seed corpora and every input that once crashed
 * stay regression tests of the normal (and the sanitizer) build.
 *
 * A harness must not leak, must not write outside its scratch directory
 * and must treat every input as hostile: any crash, sanitizer report or
 * abort() on a broken invariant is a finding.
 */
#ifndef TENURE_FUZZ_H
#define TENURE_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Fails the run (abort) with MESSAGE when CONDITION is false: an
 * invariant the code under test broke on this input. */
#define FUZZ_ASSERT(condition, message)                                     \
	do {                                                                \
		if (!(condition)) {                                         \
			fprintf(stderr, "fuzz: invariant broken: %s\n",     \
			        message);                                   \
			abort();                                            \
		}                                                           \
	} while (0)

#endif
