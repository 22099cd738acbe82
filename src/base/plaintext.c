/* plaintext.c: see plaintext.h. */
#include "config.h"

#include "base/plaintext.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/resolve.h"

/* Milliseconds left until DEADLINE (monotonic microseconds), at least 0. */
static int
left_ms(gint64 deadline)
{
	gint64 left = (deadline - g_get_monotonic_time()) / 1000;
	return left > 0 ? (int)left : 0;
}

/* Waits for EVENTS on FD until DEADLINE; TRUE when they came. */
static gboolean
wait_for(int fd, short events, gint64 deadline)
{
	struct pollfd p = {.fd = fd, .events = events};
	int rc;
	do
		rc = poll(&p, 1, left_ms(deadline));
	while (rc < 0 && errno == EINTR);
	return rc > 0 && (p.revents & events);
}

/* The first bytes the server at ADDRESS sends, up to SIZE - 1 of them
 * and NUL-terminated in BUFFER, before DEADLINE; FALSE when none came. */
static gboolean
first_words(const struct addrinfo *address, char *buffer, gsize size,
            gint64 deadline)
{
	gboolean said = FALSE;
	int fd = socket(address->ai_family,
	                address->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
	                address->ai_protocol);
	if (fd < 0)
		return FALSE;
	int problem = 0;
	socklen_t length = sizeof problem;
	if (connect(fd, address->ai_addr, address->ai_addrlen) < 0 &&
	    (errno != EINPROGRESS || !wait_for(fd, POLLOUT, deadline) ||
	     getsockopt(fd, SOL_SOCKET, SO_ERROR, &problem, &length) < 0 ||
	     problem != 0))
		goto out;
	if (!wait_for(fd, POLLIN, deadline))
		goto out;
	ssize_t n = recv(fd, buffer, size - 1, 0);
	if (n > 0) {
		buffer[n] = '\0';
		said = TRUE;
	}
out:
	close(fd);
	return said;
}

gboolean
plaintext_greets(const char *host, const char *port,
                 const char *const *prefixes)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
	struct addrinfo *addresses =
	    resolve_bounded(host, port, &hints, RESOLVE_TIMEOUT_MS, NULL);
	if (addresses == NULL)
		return FALSE;
	gint64 deadline =
	    g_get_monotonic_time() + (gint64)PLAINTEXT_TIMEOUT_MS * 1000;
	char buffer[64];
	gboolean plain = FALSE;
	/* The first address that answers at all decides. */
	for (const struct addrinfo *a = addresses; a && left_ms(deadline) > 0;
	     a = a->ai_next) {
		if (!first_words(a, buffer, sizeof buffer, deadline))
			continue;
		for (const char *const *p = prefixes; *p && !plain; p++)
			plain = g_str_has_prefix(buffer, *p);
		break;
	}
	freeaddrinfo(addresses);
	return plain;
}
