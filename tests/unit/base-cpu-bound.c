/* base-cpu-bound: a task past its CPU bound ends the process with the
 * line it was given and CPU_BOUND_EXIT (cpu_bound.h); one disarmed in
 * time, or time spent waiting, does not. */
#include "config.h"

#include <glib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/cpu_bound.h"

/* Spends SECONDS of this thread's CPU time. */
static void
spin(double seconds)
{
	struct timespec start, now;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	while ((double)(now.tv_sec - start.tv_sec) +
	           (double)(now.tv_nsec - start.tv_nsec) / 1e9 <
	       seconds);
}

static void
test_passed(void)
{
	if (g_test_subprocess()) {
		g_assert_true(cpu_bound_arm(1, "read-cpu-bound id=x limit=1s", NULL));
		spin(5);
		g_print("still running\n");
		return;
	}
	g_test_trap_subprocess(NULL, 30 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
	g_test_trap_assert_failed();
	g_test_trap_assert_stderr("*read-cpu-bound id=x limit=1s\n");
	g_test_trap_assert_stdout_unmatched("*still running*");
}

/* The exit status, which this GLib's trap does not tell. */
static void
test_status(void)
{
	pid_t child = fork();
	g_assert_cmpint(child, >=, 0);
	if (child == 0) {
		if (cpu_bound_arm(1, "bound", NULL))
			spin(5);
		_exit(0);
	}
	int status = 0;
	g_assert_cmpint(waitpid(child, &status, 0), ==, child);
	g_assert_true(WIFEXITED(status));
	g_assert_cmpint(WEXITSTATUS(status), ==, CPU_BOUND_EXIT);
}

static void
test_disarmed(void)
{
	if (g_test_subprocess()) {
		g_assert_true(cpu_bound_arm(1, "bound", NULL));
		spin(0.5);
		cpu_bound_disarm();
		spin(1.5);
		/* Waiting costs no CPU time. */
		g_assert_true(cpu_bound_arm(1, "bound", NULL));
		g_usleep(1500 * 1000);
		cpu_bound_disarm();
		g_print("ended\n");
		return;
	}
	g_test_trap_subprocess(NULL, 30 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
	g_test_trap_assert_passed();
	g_test_trap_assert_stdout("ended\n");
}

static void
test_nested(void)
{
	if (g_test_subprocess()) {
		/* The inner task's disarm leaves the outer bound running. */
		g_assert_true(cpu_bound_arm(1, "outer", NULL));
		g_assert_true(cpu_bound_arm(1, "inner", NULL));
		cpu_bound_disarm();
		spin(5);
		return;
	}
	g_test_trap_subprocess(NULL, 30 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
	g_test_trap_assert_failed();
	g_test_trap_assert_stderr("*outer\n");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/cpu-bound/passed", test_passed);
	g_test_add_func("/cpu-bound/status", test_status);
	g_test_add_func("/cpu-bound/disarmed", test_disarmed);
	g_test_add_func("/cpu-bound/nested", test_nested);
	return g_test_run();
}
