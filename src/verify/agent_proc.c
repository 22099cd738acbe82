/* agent_proc.c: see agent_proc.h. */
#define _GNU_SOURCE
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verify/agent_proc.h"

/* The real uid of process PID (from its Uid: line), or -1. */
static long
real_uid(const char *pid)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%s/status", pid);
	FILE *status = fopen(path, "re");
	long uid = -1;
	while (status && fgets(line, sizeof line, status))
		if (strncmp(line, "Uid:", 4) == 0) {
			uid = strtol(line + 4, NULL, 10);
			break;
		}
	if (status)
		fclose(status);
	return uid;
}

/* TRUE when the process PID is a gpg-agent of ours serving HOME. */
static int
serves_home(const char *pid, const char *home)
{
	char path[64], cmdline[4096];
	if (real_uid(pid) != (long)getuid())
		return 0;
	snprintf(path, sizeof path, "/proc/%s/cmdline", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, cmdline, sizeof cmdline - 1);
	close(fd);
	if (n <= 0)
		return 0;
	cmdline[n] = '\0';
	const char *name = strrchr(cmdline, '/');
	if (strcmp(name ? name + 1 : cmdline, "gpg-agent") != 0)
		return 0;
	const char *agent_home = NULL;
	for (const char *arg = cmdline; arg < cmdline + n;
	     arg += strlen(arg) + 1)
		if (strcmp(arg, "--homedir") == 0 &&
		    arg + strlen(arg) + 1 < cmdline + n)
			agent_home = arg + strlen(arg) + 1;
	if (home == NULL || agent_home == NULL)
		return home == NULL && agent_home == NULL;
	char a[PATH_MAX], b[PATH_MAX];
	return strcmp(realpath(home, a) ? a : home,
	              realpath(agent_home, b) ? b : agent_home) == 0;
}

int
agent_proc_find(const char *home, pid_t *pids, int max)
{
	int found = 0;
	DIR *proc = opendir("/proc");
	struct dirent *entry;
	while (proc && found < max && (entry = readdir(proc)) != NULL) {
		if (entry->d_name[0] < '1' || entry->d_name[0] > '9' ||
		    !serves_home(entry->d_name, home))
			continue;
		long pid = strtol(entry->d_name, NULL, 10);
		if (pid > 1)
			pids[found++] = (pid_t)pid;
	}
	if (proc)
		closedir(proc);
	return found;
}

/* The state letter of process PID (R, S, D, T, Z...), or 0 when it is
 * gone. */
static char
state_of(pid_t pid)
{
	char path[64], line[512];
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, line, sizeof line - 1);
	close(fd);
	if (n <= 0)
		return 0;
	line[n] = '\0';
	/* "PID (COMM) STATE ...": COMM may hold anything, even ") ". */
	const char *end = strrchr(line, ')');
	return end && end[1] == ' ' ? end[2] : 0;
}

int
agent_proc_ended(pid_t pid)
{
	char state = state_of(pid);
	return state == 0 || state == 'Z' || state == 'X';
}

int
agent_proc_stopped(pid_t pid)
{
	char state = state_of(pid);
	return state == 'T' || state == 't';
}
