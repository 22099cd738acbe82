/* tenure_gpg.c: tenure-gpg, gpg under a deadline (see gpgrun.h).
 *
 *     tenure-gpg GPG-ARGUMENTS...
 *
 * GPGME has no timeout, and neither has gpg: a hung gpg, a gpg-agent
 * stopped with SIGSTOP, or a signature that takes minutes to check
 * would hold tenure for ever.  GPGME's engine (gpgme_set_engine_info)
 * and every gpg command tenure runs is this program (the verification
 * is gpgv's, run by tenure itself under the same bounds: gpgrun_direct),
 * which runs the real gpg with the same arguments and descriptors and
 * bounds it:
 *
 *   - gpg runs in a process group of its own, with RLIMIT_CPU, and dies
 *     with this program (PR_SET_PDEATHSIG);
 *   - a wall-clock deadline: when it passes, gpg's whole process group
 *     is killed (SIGKILL, which gpg cannot block), and so is the
 *     gpg-agent of its GnuPG home (found among our own processes by its
 *     command line: a stopped agent answers no question), since an
 *     agent that does not answer is what hangs gpg;
 *   - an output budget on gpg's standard output (the plaintext of a
 *     clearsigned text): past it, gpg is killed;
 *   - SIGTERM, SIGINT or SIGHUP to this program kill gpg's group too.
 *
 * How it went is reported to the tenure process that ran it (directly,
 * or through GPGME, which starts its engine as a grandchild tenure does
 * not know) over that process's lifeline, an abstract Unix socket named
 * in the environment: "start PGID" once gpg runs, so that a stop of
 * tenure kills the group (netstop.h); "end HOW CODE" once it is over,
 * answered by "ok" before this program exits, so that tenure knows how
 * gpg ended before GPGME returns (the descriptors GPGME reads close only
 * when this program exits).  HOW is exit (CODE: its status), signal
 * (CODE: the signal), deadline, output (the budget was exceeded),
 * stopped (a signal to this program) or exec (gpg could not be run).
 * When tenure dies, the lifeline hangs up and gpg's group is killed.
 *
 * Environment (set by tenure, gpgrun.c):
 *   TENURE_GPG_PROGRAM     the real gpg (default "gpg", found on PATH)
 *   TENURE_GPG_TIMEOUT     seconds of wall-clock and of CPU time (10)
 *   TENURE_GPG_OUTPUT_MAX  bytes gpg may write to standard output
 *   TENURE_GPG_LIFELINE    the abstract socket to report to (optional)
 *
 * The exit status is gpg's own, 128 + N for gpg killed by signal N,
 * 124 after the deadline (as timeout(1)), 125 after the output budget,
 * 127 when gpg could not be run; a line on standard error says why.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "verify/agent_proc.h"
#include "verify/child_bounds.h"

#define DEFAULT_TIMEOUT    10
#define DEFAULT_OUTPUT_MAX (64L * 1024 * 1024)
#define ACK_WAIT_MS        2000
#define BUFFER_SIZE        65536

static int wake[2] = {-1, -1}; /* the self-pipe of the handlers */
static volatile sig_atomic_t stop_signal;

static void
on_signal(int signo)
{
	int saved = errno;
	if (signo != SIGCHLD)
		stop_signal = signo;
	ssize_t ignored = write(wake[1], "", 1);
	(void)ignored;
	errno = saved;
}

static long
env_number(const char *name, long fallback)
{
	const char *value = getenv(name);
	char *end = NULL;
	long n = value ? strtol(value, &end, 10) : 0;
	return value && *value && *end == '\0' && n > 0 ? n : fallback;
}

static long long
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Connects to tenure's lifeline; -1 when there is none. */
static int
lifeline_open(void)
{
	const char *name = getenv("TENURE_GPG_LIFELINE");
	if (name == NULL || *name == '\0' ||
	    strlen(name) + 1 > sizeof(((struct sockaddr_un *)0)->sun_path))
		return -1;
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	/* Abstract: a leading NUL, then the name without a terminator. */
	memcpy(addr.sun_path + 1, name, strlen(name));
	socklen_t len =
	    offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, len) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void
lifeline_say(int fd, const char *what, long code)
{
	char line[64];
	int n = snprintf(line, sizeof line, "%s %ld", what, code);
	if (fd >= 0 && send(fd, line, (size_t)n, MSG_NOSIGNAL) < 0)
		return;
}

/* Waits up to ACK_WAIT_MS for tenure's "ok" (it has recorded the end). */
static void
lifeline_close(int fd)
{
	if (fd < 0)
		return;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char ack[8];
	if (poll(&p, 1, ACK_WAIT_MS) > 0 && recv(fd, ack, sizeof ack, 0) < 0)
		ack[0] = '\0';
	close(fd);
}

/* The GnuPG home gpg is run on: its --homedir argument, GNUPGHOME, or
 * NULL for gpg's default. */
static const char *
home_of(char **argv)
{
	for (int i = 1; argv[i]; i++) {
		if (strcmp(argv[i], "--homedir") == 0 && argv[i + 1])
			return argv[i + 1];
		if (strncmp(argv[i], "--homedir=", 10) == 0)
			return argv[i] + 10;
		if (strcmp(argv[i], "--") == 0)
			break;
	}
	return getenv("GNUPGHOME");
}

/* Kills the gpg-agent serving HOME, if one runs: an agent that does not
 * answer (stopped, or hung) is what keeps gpg from finishing, and the
 * next gpg starts a fresh one.  It is found by its command line among
 * our own processes (agent_proc.h): a stopped agent answers no
 * "getinfo pid". */
static void
kill_agent(const char *home)
{
	pid_t agents[16];
	int found = agent_proc_find(home, agents, 16);
	for (int i = 0; i < found; i++)
		if (kill(agents[i], SIGKILL) == 0)
			fprintf(stderr, "tenure-gpg: killed gpg-agent %ld\n",
			        (long)agents[i]);
}

/* The child: gpg, in a group of its own, dying with us, limited in CPU
 * time, its standard output the pipe OUT.  It runs in the parent's
 * memory (vfork), with every signal blocked: it only makes system calls
 * on its own process and data of its own stack, then runs gpg or ends
 * with _exit, and no handler of the parent's can run in it. */
static void
exec_gpg(const char *program, char **argv, int out, pid_t parent, long timeout)
{
	child_bounds(parent, timeout);
	if (dup2(out, STDOUT_FILENO) < 0)
		_exit(127);
	/* argv is the parent's too, which reads only from argv[1] on. */
	argv[0] = (char *)program;
	execvp(program, argv);
	char line[256];
	int n = snprintf(line, sizeof line, "tenure-gpg: cannot run %s: %s\n",
	                 program, strerror(errno));
	if (n > 0 && write(STDERR_FILENO, line,
	                   (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0)
		_exit(127);
	_exit(127);
}

/* Starts exec_gpg in a child sharing this process's memory, and returns
 * once it runs gpg or has ended: its pid, or -1.  A function of its own,
 * so that no variable of the caller lives across vfork. */
static pid_t __attribute__((noinline))
spawn_gpg(const char *program, char **argv, int out, pid_t parent, long timeout)
{
	pid_t pid = vfork();
	if (pid == 0)
		exec_gpg(program, argv, out, parent, timeout);
	return pid;
}

/* What tenure is told, and what this program exits with. */
typedef struct {
	const char *how;
	long code;
	int exit_status;
} Ending;

int
main(int argc, char **argv)
{
	(void)argc;
	const char *program = getenv("TENURE_GPG_PROGRAM");
	if (program == NULL || *program == '\0')
		program = "gpg";
	long timeout = env_number("TENURE_GPG_TIMEOUT", DEFAULT_TIMEOUT);
	long long output_max =
	    env_number("TENURE_GPG_OUTPUT_MAX", DEFAULT_OUTPUT_MAX);

	if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) < 0)
		return 127;
	struct sigaction action = {.sa_handler = on_signal};
	sigemptyset(&action.sa_mask);
	sigaction(SIGCHLD, &action, NULL);
	sigaction(SIGTERM, &action, NULL);
	sigaction(SIGINT, &action, NULL);
	sigaction(SIGHUP, &action, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* tenure keeps its stop signals blocked; a child must not. */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	int lifeline = lifeline_open();
	int out[2];
	if (pipe2(out, O_CLOEXEC) < 0)
		return 127;
	pid_t self = getpid();
	/* vfork, not fork: copying this process's page tables, and the
	 * copy-on-write faults after it, cost more than gpg's own start-up
	 * on a virtual machine (bench/keyring.sh).  The child runs with all
	 * signals blocked until it has reset their handlers. */
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	pid_t pid = spawn_gpg(program, argv, out[1], self, timeout);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (pid < 0)
		return 127;
	setpgid(pid, pid);
	close(out[1]);
	lifeline_say(lifeline, "start", (long)pid);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	/* GPGME's pipe is written without blocking, so that a reader that
	 * stops reading cannot hold the deadline; a file or a terminal
	 * (run by hand) is written as it is. */
	struct stat st;
	if (fstat(STDOUT_FILENO, &st) == 0 &&
	    (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		fcntl(STDOUT_FILENO, F_SETFL,
		      fcntl(STDOUT_FILENO, F_GETFL) | O_NONBLOCK);

	static char buffer[BUFFER_SIZE];
	size_t buffered = 0, written = 0;
	long long output = 0;
	int from_gpg = out[0];
	int status = 0;
	int exited = 0;
	Ending ending = {NULL, 0, 0};
	long long deadline = now_ms() + timeout * 1000;
	while (!exited || from_gpg >= 0 || written < buffered) {
		if (ending.how == NULL) {
			if (stop_signal)
				ending = (Ending){"stopped", stop_signal,
				                  128 + stop_signal};
			else if (now_ms() >= deadline)
				ending = (Ending){"deadline", timeout, 124};
			else if (output > output_max)
				ending = (Ending){"output", output_max, 125};
			if (ending.how != NULL) {
				kill(-pid, SIGKILL);
				if (strcmp(ending.how, "deadline") == 0)
					kill_agent(home_of(argv));
			}
		}
		if (!exited) {
			pid_t done = waitpid(pid, &status, WNOHANG);
			if (done == pid)
				exited = 1;
		}
		/* Once gpg is gone and its output is not wanted, stop. */
		if (exited && ending.how != NULL)
			break;
		if (exited && from_gpg < 0 && written >= buffered)
			break;
		struct pollfd fds[3];
		int n = 0;
		fds[n++] = (struct pollfd){.fd = wake[0], .events = POLLIN};
		int gpg_slot = -1, out_slot = -1, life_slot = -1;
		if (from_gpg >= 0 && buffered == written) {
			gpg_slot = n;
			fds[n++] =
			    (struct pollfd){.fd = from_gpg, .events = POLLIN};
		}
		if (written < buffered) {
			out_slot = n;
			fds[n++] = (struct pollfd){.fd = STDOUT_FILENO,
			                           .events = POLLOUT};
		}
		if (lifeline >= 0 && n < 3 && out_slot < 0) {
			life_slot = n;
			fds[n++] =
			    (struct pollfd){.fd = lifeline, .events = POLLIN};
		}
		long long left = ending.how ? 100 : deadline - now_ms();
		if (poll(fds, (nfds_t)n, (int)(left > 0 ? left : 0)) < 0 &&
		    errno != EINTR)
			break;
		char drain[64];
		while (read(wake[0], drain, sizeof drain) > 0)
			;
		if (life_slot >= 0 && fds[life_slot].revents) {
			/* tenure is gone: so is the reason to run gpg. */
			close(lifeline);
			lifeline = -1;
			if (ending.how == NULL) {
				ending = (Ending){"stopped", 0, 128 + SIGKILL};
				kill(-pid, SIGKILL);
			}
		}
		if (gpg_slot >= 0 && fds[gpg_slot].revents) {
			ssize_t got = read(from_gpg, buffer, sizeof buffer);
			if (got > 0) {
				buffered = (size_t)got;
				written = 0;
				output += got;
			} else if (got == 0 || errno != EAGAIN) {
				close(from_gpg);
				from_gpg = -1;
			}
		}
		if (out_slot >= 0 && fds[out_slot].revents) {
			ssize_t put = write(STDOUT_FILENO, buffer + written,
			                    buffered - written);
			if (put > 0)
				written += (size_t)put;
			else if (errno != EAGAIN)
				written = buffered; /* the reader is gone */
		}
	}
	if (!exited)
		waitpid(pid, &status, 0);
	if (ending.how == NULL) {
		if (WIFSIGNALED(status))
			ending = (Ending){"signal", WTERMSIG(status),
			                  128 + WTERMSIG(status)};
		else if (WEXITSTATUS(status) == 127)
			ending = (Ending){"exec", 127, 127};
		else
			ending = (Ending){"exit", WEXITSTATUS(status),
			                  WEXITSTATUS(status)};
	}
	/* Whatever gpg left in its group (a child of its own) goes too. */
	kill(-pid, SIGKILL);
	if (strcmp(ending.how, "deadline") == 0)
		fprintf(stderr,
		        "tenure-gpg: %s killed after %ld s (deadline)\n",
		        program, timeout);
	else if (strcmp(ending.how, "output") == 0)
		fprintf(
		    stderr,
		    "tenure-gpg: %s killed: more than %lld bytes of output\n",
		    program, output_max);
	else if (strcmp(ending.how, "signal") == 0 ||
	         strcmp(ending.how, "stopped") == 0)
		fprintf(stderr, "tenure-gpg: %s ended by signal %ld\n", program,
		        ending.code);
	char end[32];
	snprintf(end, sizeof end, "end %s", ending.how);
	lifeline_say(lifeline, end, ending.code);
	lifeline_close(lifeline);
	return ending.exit_status;
}
