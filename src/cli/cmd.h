/* cmd.h: what every subcommand shares.
 *
 * Each subcommand is one file, cmd_NAME.c, with one function
 * int cmd_NAME(int argc, char **argv) returning the process exit status
 * (0 success, 1 could not do its work, 2 usage error).  main.c dispatches
 * from its table.  Every subcommand builds its GOptionContext with
 * cmd_context_new, which adds the global options (--config, --now, and
 * --ledger where the command reads the ledger).
 */
#ifndef TENURE_CMD_H
#define TENURE_CMD_H

#include <glib.h>

#include "conf/conf.h"
#include "ledger/ledger.h"

/* Exit statuses. */
enum { CMD_OK = 0, CMD_FAILED = 1, CMD_USAGE = 2 };

/* Global option values, set by whichever context parsed them. */
typedef struct {
	char *config_path; /* --config */
	char *now;         /* --now */
	char *ledger_path; /* --ledger */
} CmdGlobals;

extern CmdGlobals cmd_globals;

/* A context for "tenure NAME PARAMETERS" with SUMMARY, the global
 * options, --ledger when WITH_LEDGER, and ENTRIES (may be NULL). */
GOptionContext *cmd_context_new(const char *name, const char *parameters,
                                const char *summary, gboolean with_ledger,
                                const GOptionEntry *entries);

/* Parses ARGV with CONTEXT and applies --now.  On a usage error prints
 * "tenure NAME: problem" and returns FALSE. */
gboolean cmd_parse(GOptionContext *context, const char *name, int *argc,
                   char ***argv);

/* Loads the configuration: --config if given; else, with --ledger, the
 * built-in defaults (the default file is not read); else the default file.
 * Prints the error and returns NULL on failure. */
Conf *cmd_load_conf(const char *name);

/* For a command that writes state (run, import, audit, check-config):
 * when run as root against files that belong to the service user (its
 * state-dir, the ledger, --ledger if given, and gnupg-home),
 * becomes that user for good and says so on stderr (privilege.h).
 * Prints the error and returns FALSE when it may not go on. */
gboolean cmd_become_state_owner(const char *name, const Conf *conf);

/* The same for a command that writes exactly PATHS (NULL-terminated;
 * NULL entries end the list early). */
gboolean cmd_become_owner_of(const char *name, const char *const *paths);

/* cmd_load_conf, then cmd_become_state_owner.  Prints the error and
 * returns NULL on failure. */
Conf *cmd_load_state_conf(const char *name);

/* For a command that writes state under --now (run, import), with
 * STATE_DIR/lock held: a state that passes at the real time have
 * written is refused (prints the error, naming --dry-run, and returns
 * FALSE): what such a pass appends to the append-only ledger and queues
 * is dated --now's day, and the next real pass would announce it.  A
 * rehearsal's state (clock_real_passes) is marked one
 * (clock_note_rehearsal), and TRUE returned. */
gboolean cmd_now_rehearsal(const char *name, const Conf *conf);

/* Loads the ledger named by --ledger or CONF.  A missing ledger is an
 * error unless MISSING_OK.  Prints the error and returns NULL on
 * failure. */
Ledger *cmd_load_ledger(const char *name, const Conf *conf,
                        gboolean missing_ok);

/* Prints "tenure NAME: MESSAGE" on stderr, as an error for journald
 * when stderr is the journal (see util_log_prefix). */
void cmd_error(const char *name, const char *format, ...) G_GNUC_PRINTF(2, 3);

/* Prints the committee on ON as `tenure status` does (text), from CONF
 * and LEDGER, for check-config to end with.  FALSE with ERROR when the
 * rule or the ledger cannot be replayed. */
gboolean cmd_status_print_text(const Conf *conf, const Ledger *ledger, Day on,
                               GError **error);

int cmd_run(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_check_config(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_clock(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_outbox(int argc, char **argv);

#endif
