/* fuzz-conf.c: the configuration parser.
 *
 * The input is a whole tenure.conf, handed to conf_load through a
 * memory file so that nothing touches the disk.  conf_load must either
 * return a configuration or an error listing every problem; never both,
 * never neither.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "conf/conf.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("tenure.conf", MFD_CLOEXEC);
	FUZZ_ASSERT(fd >= 0, "memfd_create works");
	size_t done = 0;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);
		FUZZ_ASSERT(n > 0, "the memory file takes the input");
		done += n;
	}
	g_autofree char *path = g_strdup_printf("/proc/self/fd/%d", fd);
	g_autoptr(GError) error = NULL;
	g_autoptr(Conf) conf = conf_load(path, &error);
	FUZZ_ASSERT((conf == NULL) != (error == NULL),
	            "conf_load returns a configuration or an error");
	FUZZ_ASSERT(conf != NULL || error->message[0] != '\0',
	            "an error says what is wrong");
	close(fd);
	return 0;
}
