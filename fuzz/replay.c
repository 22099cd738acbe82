/* replay.c: main() for a harness built without libFuzzer.
 *
 * Runs LLVMFuzzerTestOneInput once on each file named on the command
 * line, or on each file of each directory named, and prints one line per
 * input, so `make check` replays the seed corpora and the inputs that
 * once crashed (fuzz/corpus/NAME/).
 */
#include <stdio.h>
#include <stdlib.h>

#include <glib.h>

#include "fuzz.h"

static int
replay_file(const char *path)
{
	g_autofree char *data = NULL;
	gsize len = 0;
	g_autoptr(GError) error = NULL;
	if (!g_file_get_contents(path, &data, &len, &error)) {
		fprintf(stderr, "%s\n", error->message);
		return 1;
	}
	LLVMFuzzerTestOneInput((const uint8_t *)data, len);
	printf("replayed %s (%zu bytes)\n", path, (size_t)len);
	return 0;
}

int
main(int argc, char **argv)
{
	int failed = 0;
	for (int i = 1; i < argc; i++) {
		if (!g_file_test(argv[i], G_FILE_TEST_IS_DIR)) {
			failed |= replay_file(argv[i]);
			continue;
		}
		g_autoptr(GDir) dir = g_dir_open(argv[i], 0, NULL);
		const char *name;
		while (dir && (name = g_dir_read_name(dir)) != NULL) {
			if (name[0] == '.')
				continue;
			g_autofree char *path =
			    g_build_filename(argv[i], name, NULL);
			failed |= replay_file(path);
		}
	}
	return failed;
}
