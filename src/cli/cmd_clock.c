/* cmd_clock.c: `tenure clock trust`, the admin vouching for tenure's
 * clock (clock.h).
 *
 * With no witness configured (a Maildir in and out, no NTP), a jump of
 * tenure's clock beyond CLOCK_JUMP_LIMIT across a restart holds the
 * acts the date decides until the admin, having checked the clock, says
 * so; so does a clock record that cannot be read.  The word is recorded
 * in STATE_DIR/clock, logged, and counted once by the running daemon
 * (or the next pass): a later jump is a new doubt.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "cli/cmd.h"
#include "base/date.h"
#include "base/util.h"

#define NAME "clock"

int
cmd_clock(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = cmd_context_new(
	    NAME, "trust",
	    "trust: tenure's clock is right; the expiries, announcements,\n"
	    "reminders and commands held because tenure doubted it go ahead\n"
	    "(tenure(1), run: the clock).",
	    FALSE, NULL);
	if (!cmd_parse(context, NAME, &argc, &argv))
		return CMD_USAGE;
	if (argc != 2 || strcmp(argv[1], "trust") != 0) {
		if (argc < 2)
			cmd_error(NAME, "missing what to do: trust");
		else
			cmd_error(NAME, "unknown request \"%s\": trust is "
			                "the one there is",
			          argv[1]);
		return CMD_USAGE;
	}
	if (date_now_given()) {
		cmd_error(NAME, "--now is not tenure's clock: trust says the "
		                "real clock is right");
		return CMD_USAGE;
	}
	Conf *conf = cmd_load_state_conf(NAME);
	if (conf == NULL)
		return CMD_FAILED;
	g_autoptr(GError) error = NULL;
	g_autofree char *was = NULL;
	gint64 now = date_now_unix();
	gboolean ok = clock_trust(conf->state_dir, now, &was, &error);
	if (!ok) {
		cmd_error(NAME, "%s", error->message);
	} else {
		util_log("clock-trust", "by", "admin", "was",
		         was ? was : "no doubt", NULL);
		g_autoptr(GDateTime) at = g_date_time_new_from_unix_utc(now);
		g_autofree char *text = g_date_time_format(at, "%Y-%m-%d %H:%M:%S UTC");
		printf("tenure trusts its clock (%s)%s%s\n", text,
		       was ? "; the doubt it ends: " : "", was ? was : "");
	}
	conf_free(conf);
	return ok ? CMD_OK : CMD_FAILED;
}
