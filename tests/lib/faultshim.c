/* faultshim.c: an LD_PRELOAD library that makes file operations fail, or
 * kills the process, at a chosen call, for the fault-injection tests.
 *
 *   LD_PRELOAD=tests/lib/faultshim.so TENURE_FAULT=SPEC[,SPEC...] tenure ...
 *
 * SPEC is CALL[@TEXT]:N[+]:ACTION
 *   CALL    write, fsync, rename, unlink, open (only opens that create)
 *           or any (all of these); adjtimex (its path is "-": no @TEXT),
 *           the kernel's NTP state, read by src/base/clock.c, which the
 *           shipped units' sandbox denies with EPERM; init is the
 *           library's own start, once,
 *           when the dynamic loader runs the constructors (before main:
 *           init:1:stop holds tenure at its first moments)
 *   @TEXT   count only calls on a path containing TEXT: for rename the
 *           new name (link and renameat2, which make a name without
 *           replacing one, count as rename too), for write and fsync
 *           the file the descriptor is open on (writes and fsyncs count
 *           only on regular files and directories, never on pipes,
 *           sockets or terminals)
 *   N       the Nth counted call (from 1) of this process; N+ means that
 *           call and every later one
 *   ACTION  an errno name (EIO, ENOSPC, EDQUOT, EROFS, EPERM): the call
 *           does nothing and fails with it; kill: SIGKILL before the
 *           call is made; stop: SIGSTOP before the call, which is made
 *           once the process is continued (to hold it at a known point);
 *           hang: the call never returns (a disk that stopped answering:
 *           the calling thread sleeps for good, signal handlers still
 *           run, the other threads go on)
 * for example TENURE_FAULT=write@/outbox/sent/:1+:ENOSPC (no sent record
 * can be written), TENURE_FAULT=fsync:3:EIO, TENURE_FAULT=rename:5:kill.
 *
 * TENURE_FAULT_FILE=PATH reads the SPEC list from PATH instead, again
 * at every call, so a test can fill and free the "disk" under a running
 * daemon (a missing or empty file: no fault; the counts start afresh
 * whenever the text changes).  TENURE_FAULT_LOG=PATH appends one line
 * "CALL PATH" per call that a spec's CALL and TEXT match, so a test can
 * learn how many kill points a run has.
 *
 * The library takes itself out of LD_PRELOAD when loaded, so that what
 * tenure runs (gpg, its agent) works on unharmed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <unistd.h>

#define MAX_SPECS 8
#define MAX_TEXT  256

typedef struct {
	char call[16];
	char text[MAX_TEXT];
	unsigned long nth;
	int onwards;
	int error; /* 0: kill, -2: stop, -3: hang */
	unsigned long seen;
} Spec;

static Spec specs[MAX_SPECS];
static int n_specs;
static char spec_text[1024];
static const char *spec_file;
static int log_fd = -1;
static __thread int inside; /* our own calls are not counted */

static const struct {
	const char *name;
	int value;
} errnos[] = {
    {"EIO", EIO},       {"ENOSPC", ENOSPC}, {"EDQUOT", EDQUOT},
    {"EROFS", EROFS},   {"EPERM", EPERM},   {"EACCES", EACCES},
    {"ENOENT", ENOENT}, {"EINTR", EINTR},
};

static void
parse_specs(const char *text)
{
	char copy[sizeof spec_text];
	n_specs = 0;
	snprintf(copy, sizeof copy, "%s", text);
	char *save = NULL;
	for (char *item = strtok_r(copy, ",\n", &save);
	     item && n_specs < MAX_SPECS; item = strtok_r(NULL, ",\n", &save)) {
		Spec spec = {0};
		char *first = strchr(item, ':');
		char *last = strrchr(item, ':');
		if (first == NULL || first == last)
			continue;
		*first = '\0';
		*last = '\0';
		char *at = strchr(item, '@');
		if (at) {
			*at = '\0';
			snprintf(spec.text, sizeof spec.text, "%s", at + 1);
		}
		snprintf(spec.call, sizeof spec.call, "%s", item);
		char *end = NULL;
		spec.nth = strtoul(first + 1, &end, 10);
		spec.onwards = end && *end == '+';
		const char *action = last + 1;
		spec.error = -1;
		if (strcmp(action, "kill") == 0)
			spec.error = 0;
		if (strcmp(action, "stop") == 0)
			spec.error = -2;
		if (strcmp(action, "hang") == 0)
			spec.error = -3;
		for (size_t i = 0; i < sizeof errnos / sizeof errnos[0]; i++)
			if (strcmp(action, errnos[i].name) == 0)
				spec.error = errnos[i].value;
		if (spec.error == -1 || spec.nth == 0)
			continue;
		specs[n_specs++] = spec;
	}
}

/* Reads the spec file again with raw system calls (open and read here
 * would come back to this library). */
static void
reload_spec_file(void)
{
	char text[sizeof spec_text] = "";
	int fd = (int)syscall(SYS_openat, AT_FDCWD, spec_file,
	                      O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = syscall(SYS_read, fd, text, sizeof text - 1);
		text[n > 0 ? n : 0] = '\0';
		syscall(SYS_close, fd);
	}
	if (strcmp(text, spec_text) == 0)
		return;
	snprintf(spec_text, sizeof spec_text, "%s", text);
	parse_specs(spec_text);
}

static int fault(const char *call, const char *path);

__attribute__((constructor)) static void
faultshim_init(void)
{
	const char *text = getenv("TENURE_FAULT");
	spec_file = getenv("TENURE_FAULT_FILE");
	if (text) {
		snprintf(spec_text, sizeof spec_text, "%s", text);
		parse_specs(spec_text);
	}
	const char *log = getenv("TENURE_FAULT_LOG");
	if (log)
		log_fd = (int)syscall(SYS_openat, AT_FDCWD, log,
		                      O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		                      0600);
	unsetenv("LD_PRELOAD");
	fault("init", "-");
}

/* The path FD is open on, for regular files and directories only. */
static int
fd_path(int fd, char *path, size_t size)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
		return 0;
	char link[64];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, size - 1);
	if (n < 0)
		return 0;
	path[n] = '\0';
	return 1;
}

/* Decides for one call: 0 to make it, or -1 with errno set to fail it. */
static int
fault(const char *call, const char *path)
{
	if (inside || path == NULL)
		return 0;
	inside = 1;
	if (spec_file)
		reload_spec_file();
	int result = 0;
	int logged = 0;
	for (int i = 0; i < n_specs; i++) {
		Spec *spec = &specs[i];
		/* "any" means any file operation: not the start, nor the
		 * kernel's clock. */
		if (strcmp(spec->call, "any") == 0
		        ? strcmp(call, "init") == 0 || strcmp(call, "adjtimex") == 0
		        : strcmp(spec->call, call) != 0)
			continue;
		if (spec->text[0] && strstr(path, spec->text) == NULL)
			continue;
		if (log_fd >= 0 && !logged) {
			char line[MAX_TEXT + 64];
			int n = snprintf(line, sizeof line, "%s %s\n", call, path);
			if (n > 0)
				syscall(SYS_write, log_fd, line,
				        (size_t)n < sizeof line ? (size_t)n
				                                : sizeof line - 1);
			logged = 1;
		}
		/* Atomic: the daemon's threads make calls at once, and a
		 * count lost to a race moves every later point. */
		unsigned long seen =
		    __atomic_add_fetch(&spec->seen, 1, __ATOMIC_SEQ_CST);
		if (seen == spec->nth || (spec->onwards && seen > spec->nth)) {
			if (spec->error == 0)
				raise(SIGKILL);
			if (spec->error == -2) {
				raise(SIGSTOP);
				break;
			}
			if (spec->error == -3)
				for (;;)
					pause();
			errno = spec->error;
			result = -1;
			break;
		}
	}
	inside = 0;
	return result;
}

#define REAL(type, name, ...)                                                  \
	static type (*real_##name)(__VA_ARGS__);                               \
	if (real_##name == NULL)                                               \
		real_##name = (type(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name)

static int
fd_fault(const char *call, int fd)
{
	if (n_specs == 0 && spec_file == NULL && log_fd < 0)
		return 0;
	char path[4096];
	if (inside || !fd_path(fd, path, sizeof path))
		return 0;
	return fault(call, path);
}

ssize_t
write(int fd, const void *buffer, size_t count)
{
	REAL(ssize_t, write, int, const void *, size_t);
	if (fd_fault("write", fd) < 0)
		return -1;
	return real_write(fd, buffer, count);
}

int
fsync(int fd)
{
	REAL(int, fsync, int);
	if (fd_fault("fsync", fd) < 0)
		return -1;
	return real_fsync(fd);
}

int
fdatasync(int fd)
{
	REAL(int, fdatasync, int);
	if (fd_fault("fsync", fd) < 0)
		return -1;
	return real_fdatasync(fd);
}

int
rename(const char *from, const char *to)
{
	REAL(int, rename, const char *, const char *);
	if (fault("rename", to) < 0)
		return -1;
	return real_rename(from, to);
}

int
renameat(int from_dir, const char *from, int to_dir, const char *to)
{
	REAL(int, renameat, int, const char *, int, const char *);
	if (fault("rename", to) < 0)
		return -1;
	return real_renameat(from_dir, from, to_dir, to);
}

int
renameat2(int from_dir, const char *from, int to_dir, const char *to,
          unsigned int flags)
{
	REAL(int, renameat2, int, const char *, int, const char *,
	     unsigned int);
	if (fault("rename", to) < 0)
		return -1;
	return real_renameat2(from_dir, from, to_dir, to, flags);
}

int
link(const char *from, const char *to)
{
	REAL(int, link, const char *, const char *);
	if (fault("rename", to) < 0)
		return -1;
	return real_link(from, to);
}

int
unlink(const char *path)
{
	REAL(int, unlink, const char *);
	if (fault("unlink", path) < 0)
		return -1;
	return real_unlink(path);
}

static int
open_fault(const char *path, int flags)
{
	return (flags & O_CREAT) ? fault("open", path) : 0;
}

int
open(const char *path, int flags, ...)
{
	REAL(int, open, const char *, int, ...);
	mode_t mode = 0;
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (open_fault(path, flags) < 0)
		return -1;
	return real_open(path, flags, mode);
}

int
open64(const char *path, int flags, ...)
{
	REAL(int, open64, const char *, int, ...);
	mode_t mode = 0;
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (open_fault(path, flags) < 0)
		return -1;
	return real_open64(path, flags, mode);
}

int
adjtimex(struct timex *buf)
{
	REAL(int, adjtimex, struct timex *);
	if (fault("adjtimex", "-") < 0)
		return -1;
	return real_adjtimex(buf);
}
