/* child_bounds.c: see child_bounds.h. */
#include "config.h"

#include "verify/child_bounds.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

void
child_bounds(pid_t parent, long seconds)
{
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	struct rlimit cpu = {(rlim_t)seconds, (rlim_t)seconds + 1};
	setrlimit(RLIMIT_CPU, &cpu);
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigemptyset(&dfl.sa_mask);
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction now;
		if (sig == SIGKILL || sig == SIGSTOP ||
		    sigaction(sig, NULL, &now) < 0)
			continue;
		if (now.sa_handler != SIG_IGN || sig == SIGTERM ||
		    sig == SIGINT || sig == SIGHUP || sig == SIGPIPE)
			sigaction(sig, &dfl, NULL);
	}
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}
