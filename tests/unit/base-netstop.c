/* base-netstop.c: the stop path (netstop.c): a socket's total deadline,
 * children that do not inherit the blocked stop signals, the registry
 * of child process groups killed on a stop, and the exit when a stop
 * takes too long.  A stop ends the test process by design, so those
 * cases run in a subprocess (g_test_trap_subprocess). */
#include "config.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "base/netstop.h"
#include "base/util.h"

static void
block_stop_signals(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

/* A child in a process group of its own that ignores SIGTERM the way a
 * hung gpg with an inherited mask did: it blocks it, then sleeps. */
static pid_t
stubborn_child(void)
{
	pid_t pid = fork();
	g_assert_cmpint(pid, >=, 0);
	if (pid == 0) {
		setpgid(0, 0);
		block_stop_signals();
		for (;;)
			pause();
	}
	setpgid(pid, pid);
	return pid;
}

/* A socket whose peer never says a word is shut down at its deadline,
 * and netstop_expired says the deadline did it. */
static void
test_deadline(void)
{
	int pair[2];
	g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), ==, 0);
	netstop_watch(pair[0]);
	gint64 start = g_get_monotonic_time();
	netstop_deadline(pair[0], start + 300 * 1000);
	char byte;
	g_assert_cmpint(read(pair[0], &byte, 1), ==, 0);
	gint64 took = g_get_monotonic_time() - start;
	g_assert_cmpint(took, >=, 300 * 1000);
	g_assert_cmpint(took, <, 2 * G_USEC_PER_SEC);
	g_assert_true(netstop_expired(pair[0]));
	netstop_unwatch(pair[0]);
	close(pair[0]);
	close(pair[1]);
}

/* `tenure run` blocks SIGTERM; what it forks must not. */
static void
test_child_mask(void)
{
	netstop_start();
	block_stop_signals();
	pid_t pid = fork();
	g_assert_cmpint(pid, >=, 0);
	if (pid == 0) {
		sigset_t mask;
		pthread_sigmask(SIG_SETMASK, NULL, &mask);
		_exit(sigismember(&mask, SIGTERM) || sigismember(&mask, SIGHUP)
		          ? 1
		          : 0);
	}
	int status = 0;
	g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
	g_assert_true(WIFEXITED(status));
	g_assert_cmpint(WEXITSTATUS(status), ==, 0);
}

static void
test_children_kill(void)
{
	pid_t pid = stubborn_child();
	netstop_child_register(pid);
	netstop_children_kill();
	int status = 0;
	g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
	g_assert_true(WIFSIGNALED(status));
	g_assert_cmpint(WTERMSIG(status), ==, SIGKILL);
	netstop_child_unregister(pid);
}

/* On a stop, a registered group still there after the child grace is
 * killed; an unregistered one is left alone.  Runs in a subprocess: the
 * stop ends it at NETSTOP_EXIT_MS. */
static void
test_stop_kills_children(void)
{
	if (g_test_subprocess()) {
		pid_t stubborn = stubborn_child();
		pid_t other = stubborn_child();
		netstop_child_register(stubborn);
		netstop_start();
		gint64 start = g_get_monotonic_time();
		util_stop_request();
		int status = 0;
		g_assert_cmpint(waitpid(stubborn, &status, 0), ==, stubborn);
		gint64 took = (g_get_monotonic_time() - start) / 1000;
		g_assert_true(WIFSIGNALED(status));
		g_assert_cmpint(took, >=, NETSTOP_CHILD_GRACE_MS);
		g_assert_cmpint(took, <, NETSTOP_EXIT_MS);
		g_assert_cmpint(waitpid(other, &status, WNOHANG), ==, 0);
		kill(other, SIGKILL);
		g_print("killed after %" G_GINT64_FORMAT " ms\n", took);
		_exit(0);
	}
	g_test_trap_subprocess(NULL, 10 * G_USEC_PER_SEC, 0);
	g_test_trap_assert_passed();
	g_test_trap_assert_stdout("killed after *");
}

/* A stop that something holds up (here: a sleep of 60 s) ends the
 * process within 5 s anyway, saying why, with the children killed. */
static void
test_stop_deadline(void)
{
	if (g_test_subprocess()) {
		pid_t stubborn = stubborn_child();
		netstop_child_register(stubborn);
		netstop_start();
		g_print("child %d\n", (int)stubborn);
		util_stop_request();
		g_usleep(60 * G_USEC_PER_SEC);
		_exit(3);
	}
	gint64 start = g_get_monotonic_time();
	g_test_trap_subprocess(NULL, 10 * G_USEC_PER_SEC, 0);
	gint64 took = (g_get_monotonic_time() - start) / 1000;
	g_test_trap_assert_passed();
	g_test_trap_assert_stderr("*run-stop reason=deadline*");
	g_assert_cmpint(took, >=, NETSTOP_EXIT_MS);
	g_assert_cmpint(took, <, 5000 + 500);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/netstop/deadline", test_deadline);
	g_test_add_func("/netstop/child-mask", test_child_mask);
	g_test_add_func("/netstop/children-kill", test_children_kill);
	g_test_add_func("/netstop/stop-kills-children", test_stop_kills_children);
	g_test_add_func("/netstop/stop-deadline", test_stop_deadline);
	return g_test_run();
}
