/* pending.c: see pending.h. */
#include "config.h"

#include <string.h>

#include "ledger/pending.h"
#include "base/state_file.h"
#include "base/util.h"

/* What to do about a torn file (see state_file.h). */
#define REMEDY                                                              \
	"restore it from a backup, or remove it and ask the signers of the " \
	"recommendations, removals, handovers and new keys that were waiting " \
	"there to send them again"

struct Pending {
	char *path;
	GKeyFile *file;
};

void
pending_free(Pending *pending)
{
	if (pending == NULL)
		return;
	g_free(pending->path);
	g_key_file_unref(pending->file);
	g_free(pending);
}

void
pending_recommendation_free(PendingRecommendation *rec)
{
	if (rec == NULL)
		return;
	g_free(rec->member);
	g_free(rec->fingerprint);
	g_free(rec->signed_by);
	g_free(rec->message_id);
	g_free(rec);
}

void
pending_removal_free(PendingRemoval *removal)
{
	if (removal == NULL)
		return;
	g_free(removal->member);
	g_free(removal->chair);
	g_free(removal->chair_message);
	g_free(removal->leader);
	g_free(removal->leader_message);
	g_free(removal);
}

Pending *
pending_load(const char *state_dir, GError **error)
{
	g_autoptr(Pending) pending = g_new0(Pending, 1);
	pending->path = g_build_filename(state_dir, "pending", NULL);
	pending->file = g_key_file_new();
	g_autofree char *text = NULL;
	gsize len = 0;
	if (!state_file_read(state_dir, pending->path, REMEDY, &text, &len, NULL,
	                     error))
		return NULL;
	g_autoptr(GError) local = NULL;
	if (text && !g_key_file_load_from_data(pending->file, text, len,
	                                       G_KEY_FILE_NONE, &local)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE, "%s: %s",
		            pending->path, local->message);
		return NULL;
	}
	return g_steal_pointer(&pending);
}

static gboolean
save(Pending *pending, GError **error)
{
	gsize len = 0;
	g_autofree char *data = g_key_file_to_data(pending->file, &len, NULL);
	return state_file_write(pending->path, data, len, error);
}

static Day
get_day(GKeyFile *file, const char *group, const char *key)
{
	g_autofree char *text = g_key_file_get_string(file, group, key, NULL);
	Day day = DAY_NONE;
	if (text)
		date_parse(text, &day);
	return day;
}

static void
set_string(GKeyFile *file, const char *group, const char *key,
           const char *value)
{
	if (value)
		g_key_file_set_string(file, group, key, value);
}

static void
set_day(GKeyFile *file, const char *group, const char *key, Day day)
{
	if (day != DAY_NONE) {
		char buf[11];
		g_key_file_set_string(file, group, key, date_format(day, buf));
	}
}

PendingRecommendation *
pending_get_recommendation(const Pending *pending, const char *email)
{
	g_autofree char *group = g_strdup_printf("recommend %s", email);
	if (!g_key_file_has_group(pending->file, group))
		return NULL;
	PendingRecommendation *rec = g_new0(PendingRecommendation, 1);
	GKeyFile *f = pending->file;
	rec->member = g_key_file_get_string(f, group, "member", NULL);
	rec->fingerprint = g_key_file_get_string(f, group, "fingerprint", NULL);
	rec->project_joined = get_day(f, group, "project-joined");
	rec->signed_by = g_key_file_get_string(f, group, "signed-by", NULL);
	rec->message_id = g_key_file_get_string(f, group, "message-id", NULL);
	rec->date = get_day(f, group, "date");
	return rec;
}

PendingRemoval *
pending_get_removal(const Pending *pending, const char *email)
{
	g_autofree char *group = g_strdup_printf("remove %s", email);
	if (!g_key_file_has_group(pending->file, group))
		return NULL;
	PendingRemoval *removal = g_new0(PendingRemoval, 1);
	GKeyFile *f = pending->file;
	removal->member = g_key_file_get_string(f, group, "member", NULL);
	removal->effective = get_day(f, group, "effective");
	removal->chair = g_key_file_get_string(f, group, "chair", NULL);
	removal->chair_message = g_key_file_get_string(f, group, "chair-message", NULL);
	removal->leader = g_key_file_get_string(f, group, "leader", NULL);
	removal->leader_message = g_key_file_get_string(f, group, "leader-message", NULL);
	return removal;
}

gboolean
pending_set_recommendation(Pending *pending, const char *email,
                           const PendingRecommendation *rec, GError **error)
{
	g_autofree char *group = g_strdup_printf("recommend %s", email);
	GKeyFile *f = pending->file;
	g_key_file_remove_group(f, group, NULL);
	set_string(f, group, "member", rec->member);
	set_string(f, group, "fingerprint", rec->fingerprint);
	set_day(f, group, "project-joined", rec->project_joined);
	set_string(f, group, "signed-by", rec->signed_by);
	set_string(f, group, "message-id", rec->message_id);
	set_day(f, group, "date", rec->date);
	return save(pending, error);
}

gboolean
pending_set_removal(Pending *pending, const char *email,
                    const PendingRemoval *removal, GError **error)
{
	g_autofree char *group = g_strdup_printf("remove %s", email);
	GKeyFile *f = pending->file;
	g_key_file_remove_group(f, group, NULL);
	set_string(f, group, "member", removal->member);
	set_day(f, group, "effective", removal->effective);
	set_string(f, group, "chair", removal->chair);
	set_string(f, group, "chair-message", removal->chair_message);
	set_string(f, group, "leader", removal->leader);
	set_string(f, group, "leader-message", removal->leader_message);
	return save(pending, error);
}

static gboolean
drop(Pending *pending, const char *kind, const char *email, GError **error)
{
	g_autofree char *group = g_strdup_printf("%s %s", kind, email);
	if (!g_key_file_remove_group(pending->file, group, NULL))
		return TRUE;
	return save(pending, error);
}

gboolean
pending_drop_recommendation(Pending *pending, const char *email,
                            GError **error)
{
	return drop(pending, "recommend", email, error);
}

gboolean
pending_drop_removal(Pending *pending, const char *email, GError **error)
{
	return drop(pending, "remove", email, error);
}

void
pending_binding_free(PendingBinding *half)
{
	if (half == NULL)
		return;
	g_free(half->member);
	g_free(half->fingerprint);
	g_free(half->role);
	g_free(half->signed_by);
	g_free(half->message_id);
	g_free(half);
}

static const char *const binding_groups[] = {
	[PENDING_NEW_KEY] = "new-key",
	[PENDING_HANDOVER] = "handover",
	[PENDING_KEY] = "key",
};

static char *
binding_group(PendingBindingKind kind, const char *id)
{
	return g_strdup_printf("%s %s", binding_groups[kind], id);
}

PendingBinding *
pending_get_binding(const Pending *pending, PendingBindingKind kind,
                    const char *id)
{
	g_autofree char *group = binding_group(kind, id);
	if (!g_key_file_has_group(pending->file, group))
		return NULL;
	PendingBinding *half = g_new0(PendingBinding, 1);
	GKeyFile *f = pending->file;
	half->member = g_key_file_get_string(f, group, "member", NULL);
	half->fingerprint = g_key_file_get_string(f, group, "fingerprint", NULL);
	half->role = g_key_file_get_string(f, group, "role", NULL);
	half->signed_by = g_key_file_get_string(f, group, "signed-by", NULL);
	half->message_id = g_key_file_get_string(f, group, "message-id", NULL);
	half->date = get_day(f, group, "date");
	half->effective = get_day(f, group, "effective");
	return half;
}

/* Whether GROUP holds a half of a binding, and of which kind. */
static gboolean
binding_kind_of(const char *group, PendingBindingKind *kind)
{
	for (gsize k = 0; k < G_N_ELEMENTS(binding_groups); k++) {
		gsize len = strlen(binding_groups[k]);
		if (strncmp(group, binding_groups[k], len) == 0 &&
		    group[len] == ' ') {
			*kind = (PendingBindingKind)k;
			return TRUE;
		}
	}
	return FALSE;
}

/* Drops the halves of bindings dated before STALE_BEFORE. */
static void
drop_stale_bindings(GKeyFile *file, Day stale_before)
{
	g_auto(GStrv) groups = g_key_file_get_groups(file, NULL);
	PendingBindingKind kind;
	for (char **group = groups; *group; group++)
		if (binding_kind_of(*group, &kind) &&
		    get_day(file, *group, "date") < stale_before)
			g_key_file_remove_group(file, *group, NULL);
}

char **
pending_binding_keys(const Pending *pending)
{
	g_autoptr(GStrvBuilder) keys = g_strv_builder_new();
	g_auto(GStrv) groups = g_key_file_get_groups(pending->file, NULL);
	PendingBindingKind kind;
	for (char **group = groups; *group; group++) {
		if (!binding_kind_of(*group, &kind) || kind == PENDING_KEY)
			continue;
		g_autofree char *fpr = g_key_file_get_string(pending->file, *group,
		                                             "fingerprint", NULL);
		if (fpr)
			g_strv_builder_add(keys, fpr);
	}
	return g_strv_builder_end(keys);
}

gboolean
pending_set_binding(Pending *pending, PendingBindingKind kind, const char *id,
                    const PendingBinding *half, Day stale_before,
                    GError **error)
{
	g_autofree char *group = binding_group(kind, id);
	GKeyFile *f = pending->file;
	g_key_file_remove_group(f, group, NULL);
	drop_stale_bindings(f, stale_before);
	set_string(f, group, "member", half->member);
	set_string(f, group, "fingerprint", half->fingerprint);
	set_string(f, group, "role", half->role);
	set_string(f, group, "signed-by", half->signed_by);
	set_string(f, group, "message-id", half->message_id);
	set_day(f, group, "date", half->date);
	set_day(f, group, "effective", half->effective);
	return save(pending, error);
}

gboolean
pending_drop_binding(Pending *pending, PendingBindingKind kind,
                     const char *id, GError **error)
{
	return drop(pending, binding_groups[kind], id, error);
}

const char *
pending_step_kind_name(PendingStepKind kind)
{
	switch (kind) {
	case PENDING_STEP_RECOMMENDATION:
		return "recommendation";
	case PENDING_STEP_REMOVAL:
		return "removal";
	case PENDING_STEP_KEY:
		return "key";
	case PENDING_STEP_HANDOVER:
		return "handover";
	}
	return "unknown";
}

static void
step_free(PendingStep *step)
{
	g_free(step->member);
	g_free(step->role);
	g_free(step->signed_by);
	g_free(step);
}

static PendingStep *
step_new(PendingStepKind kind, const char *member, const char *signed_by,
         Day date, int days)
{
	PendingStep *step = g_new0(PendingStep, 1);
	step->kind = kind;
	step->member = g_strdup(member ? member : "");
	step->signed_by = g_strdup(signed_by ? signed_by : "");
	step->date = date;
	/* It counts on DATE + DAYS still (decide.c, intake.c). */
	step->lapses = date != DAY_NONE && days >= 0 ? date + days + 1 : DAY_NONE;
	return step;
}

GPtrArray *
pending_steps(const Pending *pending, int recommendation_days,
              int confirm_days)
{
	GPtrArray *steps =
	    g_ptr_array_new_with_free_func((GDestroyNotify)step_free);
	g_auto(GStrv) groups = g_key_file_get_groups(pending->file, NULL);
	for (int pass = 0; pass < 3; pass++)
		for (char **group = groups; *group; group++) {
			PendingBindingKind kind;
			const char *id = strchr(*group, ' ');
			if (id == NULL)
				continue;
			id++;
			if (pass == 0 && g_str_has_prefix(*group, "recommend ")) {
				g_autoptr(PendingRecommendation) rec =
				    pending_get_recommendation(pending, id);
				g_ptr_array_add(
				    steps,
				    step_new(PENDING_STEP_RECOMMENDATION, rec->member,
				             rec->signed_by, rec->date,
				             recommendation_days));
			} else if (pass == 1 && g_str_has_prefix(*group, "remove ")) {
				g_autoptr(PendingRemoval) removal =
				    pending_get_removal(pending, id);
				g_autofree char *signers = g_strjoin(
				    " ", removal->chair ? removal->chair : "",
				    removal->leader ? removal->leader : "", NULL);
				g_ptr_array_add(steps,
				                step_new(PENDING_STEP_REMOVAL,
				                         removal->member,
				                         g_strstrip(signers), DAY_NONE,
				                         -1));
			} else if (pass == 2 && binding_kind_of(*group, &kind)) {
				g_autoptr(PendingBinding) half =
				    pending_get_binding(pending, kind, id);
				PendingStep *step = step_new(
				    half->role ? PENDING_STEP_HANDOVER : PENDING_STEP_KEY,
				    half->member, half->signed_by, half->date,
				    confirm_days);
				step->role = g_strdup(half->role);
				g_ptr_array_add(steps, step);
			}
		}
	return steps;
}
