/* base-plaintext.c: plaintext_greets (plaintext.c) against a listener on
 * a loopback port: a greeting in plain text with one of the prefixes is
 * told, one with another start is not, and neither is a server that
 * says nothing (a TLS server waiting for the client's hello) nor a port
 * nobody listens on. */
#include "config.h"

#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib.h>

#include "base/plaintext.h"

static const char *const imap_greetings[] = {"* OK", "* PREAUTH", NULL};

typedef struct {
	int listener;
	const char *greeting; /* NULL: accept and say nothing */
} Server;

/* Accepts one connection, says the greeting (or nothing), and waits for
 * the client to hang up. */
static gpointer
serve(gpointer data)
{
	Server *server = data;
	int fd = accept(server->listener, NULL, NULL);
	if (fd >= 0) {
		if (server->greeting)
			g_assert_cmpint(write(fd, server->greeting,
			                      strlen(server->greeting)),
			                >, 0);
		char byte;
		while (read(fd, &byte, 1) > 0)
			;
		close(fd);
	}
	return NULL;
}

/* A listener on 127.0.0.1; its port in PORT. */
static int
listen_loopback(char port[8])
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	g_assert_cmpint(fd, >=, 0);
	struct sockaddr_in address = {
	    .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t length = sizeof address;
	g_assert_cmpint(bind(fd, (struct sockaddr *)&address, length), ==, 0);
	g_assert_cmpint(listen(fd, 1), ==, 0);
	g_assert_cmpint(getsockname(fd, (struct sockaddr *)&address, &length),
	                ==, 0);
	g_snprintf(port, 8, "%u", ntohs(address.sin_port));
	return fd;
}

static gboolean
greets(const char *greeting)
{
	char port[8];
	Server server = {.listener = listen_loopback(port),
	                 .greeting = greeting};
	GThread *thread = g_thread_new("server", serve, &server);
	gboolean plain = plaintext_greets("127.0.0.1", port, imap_greetings);
	g_thread_join(thread);
	close(server.listener);
	return plain;
}

static void
test_plain_greeting(void)
{
	g_assert_true(greets("* OK [CAPABILITY IMAP4rev1] Dovecot ready.\r\n"));
	g_assert_true(greets("* PREAUTH welcome\r\n"));
}

static void
test_other_words(void)
{
	g_assert_false(greets("220 mail.example.org ESMTP\r\n"));
	/* The start of a TLS record: not plain text. */
	g_assert_false(greets("\x16\x03\x03"));
}

static void
test_silent(void)
{
	g_assert_false(greets(NULL));
}

static void
test_nobody_listens(void)
{
	char port[8];
	int fd = listen_loopback(port);
	close(fd);
	g_assert_false(plaintext_greets("127.0.0.1", port, imap_greetings));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/plaintext/greeting", test_plain_greeting);
	g_test_add_func("/plaintext/other-words", test_other_words);
	g_test_add_func("/plaintext/silent", test_silent);
	g_test_add_func("/plaintext/nobody-listens", test_nobody_listens);
	return g_test_run();
}
