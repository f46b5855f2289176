/*
 * report_text.c: the words and table cells every renderer prints from a finished report
 * model (report_model.c), so HTML, Markdown and JUnit say the same thing in the same words:
 * the baseline's counts, the families' rows and their export and exec commands, the
 * NaN-policy rows, cell ids and types, case ids and replay commands, the first difference,
 * XML and Markdown escaping, the report's subject and the NaN-policy fingerprint texts.
 */
#include "report_model.h"

#include "op_module.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_id.h"
#include "compare.h"
#include "dtype.h"
#include "replay.h"

const char *report_baseline_counts(const report_model *m, char *buf, size_t size)
{
    size_t regressed = 0, fixed = 0, fresh = 0;
    for (size_t i = 0; i < m->cell_count; i++) {
        regressed += m->cells[i].mark == REPORT_MARK_REGRESSED;
        fixed += m->cells[i].mark == REPORT_MARK_FIXED;
    }
    for (size_t i = 0; i < m->signature_count; i++)
        fresh += m->signatures[i].mark == REPORT_MARK_NEW || m->signatures[i].mark == REPORT_MARK_REGRESSED;
    if (!m->baseline)
        snprintf(buf, size, "%s", "");
    else
        snprintf(buf, size, "%zu regression%s, %zu fixed (cells); %zu bug%s new, %zu gone "
                 "(families: by root cause where probing confirmed one; unjudged rows no cause explains are not counted); %zu signature%s new, "
                 "%zu gone", regressed, regressed == 1 ? "" : "s", fixed, m->bugs_new,
                 m->bugs_new == 1 ? "" : "s", m->bugs_gone, fresh, fresh == 1 ? "" : "s",
                 m->gone_count);
    return buf;
}

const report_signature *report_family_signature(const report_model *m, const family *f)
{
    const report_signature *best = NULL;
    for (size_t i = 0; i < m->signature_count; i++) {
        const report_signature *s = &m->signatures[i];
        if (report_model_family_of(m, s) != f)
            continue;
        if (!best || (s->rep_elements && (!best->rep_elements || s->rep_elements < best->rep_elements)))
            best = s;
    }
    return best;
}

const char *report_family_status(const report_model *m, const family *f)
{
    if (strcmp(f->verdict, "fail"))
        return f->nondeterministic ? "differs, nondeterministic" : "differs";
    if (f->nondeterministic)
        return "FAIL, nondeterministic";
    for (size_t i = 0; i < m->signature_count; i++) {
        const report_signature *s = &m->signatures[i];
        if (report_model_family_of(m, s) == f && !s->unspecified && !s->expected_reason)
            return "FAIL";
    }
    return "expected";
}

const char *const report_family_intro =
    "A family is one root cause: the failures that probing the backend confirmed as one cause "
    "of the catalogue (docs/DIAGNOSIS.md), whatever their operators, kinds, levels, types, "
    "layouts and values. Failures no cause explains are grouped by operator family, kind and "
    "verdict, and their root cause says undiagnosed. Needs is what sets a family's failures "
    "apart from the operators' other judged cases.";

const char *report_family_cause_text(const family *f, char *buf, size_t size)
{
    if (f->cause[0])
        snprintf(buf, size, "%s", f->cause);
    else if (f->diagnosed)
        snprintf(buf, size, "undiagnosed (%s)", f->kind);
    else
        snprintf(buf, size, "%s", f->kind);
    return buf;
}

const char *const report_family_head[REPORT_FAMILY_COLUMNS] = {
    "#", "Status", "Operators", "Root cause", "Cases", "Signatures", "Needs",
};

void report_family_cells(const report_model *m, size_t i,
                         char cells[REPORT_FAMILY_COLUMNS][REPORT_CELL_SIZE])
{
    const family *f = &m->families.items[i];
    snprintf(cells[0], REPORT_CELL_SIZE, "%zu", i + 1);
    snprintf(cells[1], REPORT_CELL_SIZE, "%s", report_family_status(m, f));
    snprintf(cells[2], REPORT_CELL_SIZE, "%s", f->op);
    report_family_cause_text(f, cells[3], REPORT_CELL_SIZE);
    snprintf(cells[4], REPORT_CELL_SIZE, "%" PRIu64, f->cases);
    snprintf(cells[5], REPORT_CELL_SIZE, "%" PRIu64, f->signatures);
    snprintf(cells[6], REPORT_CELL_SIZE, "%s", f->needs[0] ? f->needs : "-");
}

const char *const report_nan_head[REPORT_NAN_COLUMNS] = {
    "Backend", "Operator", "Input", "NaN policy", "Baseline",
};

unsigned report_nan_cells(const report_model *m, size_t i,
                          char cells[REPORT_NAN_COLUMNS][REPORT_CELL_SIZE])
{
    const report_nan_fingerprint *f = &m->nan_prints[i];
    snprintf(cells[0], REPORT_CELL_SIZE, "%s", f->subject);
    snprintf(cells[1], REPORT_CELL_SIZE, "%s", op_table[f->op].name);
    snprintf(cells[2], REPORT_CELL_SIZE, "%s", dtype_name(f->input));
    report_nan_fingerprint_text(f, false, cells[3], REPORT_CELL_SIZE);
    if (!m->baseline)
        return 4;
    if (f->has_baseline)
        report_nan_fingerprint_text(f, true, cells[4], REPORT_CELL_SIZE);
    else
        snprintf(cells[4], REPORT_CELL_SIZE, "-");
    return 5;
}

/* A command's room: quoted, one byte of outside text takes at most 10 characters
 * ($'\xHH' between a closed and a reopened quote). */
static size_t quoted_room(const char *text)
{
    return text ? 10 * strlen(text) : 0;
}

/* A buffer of `size` bytes for a command; NULL when out of memory (the caller prints that). */
static char *command_buffer(size_t size)
{
    char *buf = malloc(size);
    if (buf)
        buf[0] = 0;
    return buf;
}

void report_emit(FILE *out, report_escape_fn *escape, char *command)
{
    escape(out, command ? command : "(out of memory writing the command)");
    free(command);
}

char *report_family_export_command(const report_model *m, size_t i)
{
    const char *db = m->deterministic || !m->db_path ? "dmlcheck.sqlite" : m->db_path;
    size_t size = 160 + quoted_room(db);
    char *buf = command_buffer(size);
    if (!buf)
        return NULL;
    char selection[48];
    if (m->run_count == 1)
        snprintf(selection, sizeof selection, "--run %" PRId64, m->runs[0].id);
    else
        snprintf(selection, sizeof selection, "--all");
    snprintf(buf, size, "dmlcheck export --family %zu %s --db", i + 1, selection);
    replay_append_arg(buf, size, db);
    size_t used = strlen(buf);
    snprintf(buf + used, size - used, " > family-%zu.json", i + 1);
    return buf;
}

char *report_family_exec_command(const report_signature *s, size_t i)
{
    const char *backend = s && s->backend[0] ? s->backend : "reference";
    size_t size = 96 + quoted_room(backend);
    char *buf = command_buffer(size);
    if (!buf)
        return NULL;
    char file[40];
    snprintf(file, sizeof file, "family-%zu.json", i + 1);
    snprintf(buf, size, "dmlcheck exec --backend");
    replay_append_arg(buf, size, backend);
    replay_append_arg(buf, size, file);
    return buf;
}

/* ---- text helpers ------------------------------------------------------------------- */

static const char *stem_or_none(DML_TENSOR_DATA_TYPE t)
{
    return t == DML_TENSOR_DATA_TYPE_UNKNOWN ? "none" : dtype_stem(t);
}

const char *report_cell_types(const report_cell_key *k, char *buf, size_t size)
{
    if (k->op < OP_COUNT && op_table[k->op].module->output_is_index)
        snprintf(buf, size, "%s \u2192 %s", dtype_stem(k->input), dtype_stem(k->output));
    else if (k->indices == DML_TENSOR_DATA_TYPE_UNKNOWN)
        snprintf(buf, size, "%s, no indices", dtype_stem(k->input));
    else
        snprintf(buf, size, "%s, indices %s", dtype_stem(k->input), dtype_stem(k->indices));
    return buf;
}

const char *report_cell_id(const report_cell_key *k, char *buf, size_t size)
{
    const char *op = k->op < OP_COUNT ? op_table[k->op].stem : "unknown";
    if (k->op < OP_COUNT && op_table[k->op].module->output_is_index)
        snprintf(buf, size, "%s_%s_%s", op, dtype_stem(k->input), dtype_stem(k->output));
    else if (k->indices == DML_TENSOR_DATA_TYPE_UNKNOWN)
        snprintf(buf, size, "%s_%s", op, dtype_stem(k->input));
    else
        snprintf(buf, size, "%s_%s_idx_%s", op, dtype_stem(k->input), stem_or_none(k->indices));
    return buf;
}

const char *report_case_id(const report_signature *s, char *buf, size_t size)
{
    gen_case_id id = { .version = s->gen_version, .seed = s->seed, .index = s->index };
    return gen_format_case_id(&id, buf, size);
}

char *report_replay_command(const report_signature *s)
{
    static const char prefix[] = "dmlcheck replay ";
    size_t size = 64 + GEN_CASE_ID_SIZE + quoted_room(s->replay) + quoted_room(s->backend)
                  + strlen(s->gen_args);
    char *buf = command_buffer(size);
    if (!buf)
        return NULL;
    char id[GEN_CASE_ID_SIZE], **words = NULL;
    size_t count = 0;
    snprintf(buf, size, "%s%s", prefix, report_case_id(s, id, sizeof id));
    if (s->replay && !strncmp(s->replay, prefix, sizeof prefix - 1)
        && replay_split_args(s->replay, &words, &count)) {
        /* The runner's own command, which knows its options, with its id written again: one
         * a version-1 run stored bare ("7:49") then says which generator drew it.  Each word
         * is quoted again, so the stored text (any database's) cannot bring an unquoted word
         * or a raw control character into the report. */
        for (size_t i = 3; i < count; i++)
            replay_append_arg(buf, size, words[i]);
        free(words);
        return buf;
    }
    replay_append_arg(buf, size, "--backend");
    replay_append_arg(buf, size, s->backend[0] ? s->backend : "reference");
    if (s->gen_args[0]) /* already quoted, word by word (report_load.c) */
        snprintf(buf + strlen(buf), size - strlen(buf), " %s", s->gen_args);
    return buf;
}

char *report_export_command(const report_signature *s)
{
    size_t size = 64 + GEN_CASE_ID_SIZE + strlen(s->gen_args);
    char *buf = command_buffer(size);
    if (!buf)
        return NULL;
    char id[GEN_CASE_ID_SIZE];
    snprintf(buf, size, "dmlcheck export %s%s%s > case.json", report_case_id(s, id, sizeof id),
             s->gen_args[0] ? " " : "", s->gen_args);
    return buf;
}

const char *report_first_difference(const report_signature *s, char *buf, size_t size)
{
    if (!s->tensor[0]) {
        snprintf(buf, size, "no element compared%s%s", s->detail[0] ? ": " : "", s->detail);
        return buf;
    }
    char want[96], got[96];
    compare_format_value(s->element_type, s->expected_bits, want, sizeof want);
    compare_format_value(s->element_type, s->got_bits, got, sizeof got);
    snprintf(buf, size, "%s[%" PRIu64 "]: expected %s, got %s", s->tensor, s->element, want, got);
    return buf;
}

/* Length of the valid UTF-8 sequence at s that encodes a character XML allows, else 0. */
static size_t utf8_char_length(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return c >= 0x20 || c == '\t' || c == '\n' || c == '\r' ? 1 : 0;
    size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (!len || (c >= 0xF5))
        return 0;
    uint32_t cp = c & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    static const uint32_t min_for_len[] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (cp < min_for_len[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)
        || cp == 0xFFFE || cp == 0xFFFF)
        return 0;
    return len;
}

/* Whether the character at p (len bytes) is a control a terminal or viewer may obey: C0
 * but newline, carriage return and tab, DEL, and C1 (U+0080 to U+009F).  No format needs
 * one, and XML 1.0 forbids C0; each is written as the text \xHH, byte by byte. */
static bool hostile_control(const unsigned char *p, size_t len)
{
    if (len == 1)
        return (*p < 0x20 && *p != '\n' && *p != '\r' && *p != '\t') || *p == 0x7f;
    return len == 2 && p[0] == 0xC2 && p[1] < 0xA0;
}

/* Writes the control at p as \xHH text per byte; `backslash` is how the format spells \. */
static void write_control(FILE *out, const unsigned char *p, size_t len, const char *backslash)
{
    for (size_t i = 0; i < len; i++)
        fprintf(out, "%sx%02x", backslash, p[i]);
}

void report_xml_escape(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        size_t len = utf8_char_length(p);
        if (!len) {
            fputs("&#xFFFD;", out);
            p++;
            continue;
        }
        if (hostile_control(p, len)) {
            write_control(out, p, len, "\\");
            p += len;
            continue;
        }
        switch (*p) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        case '\n': fputs("&#10;", out); break;
        case '\r': fputs("&#13;", out); break;
        case '\t': fputs("&#9;", out); break;
        default: fwrite(p, 1, len, out);
        }
        p += len;
    }
}

void report_md_escape(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        size_t len = utf8_char_length(p);
        if (!len) {
            fputs("\xEF\xBF\xBD", out);
            p++;
            continue;
        }
        if (*p == '\n' || *p == '\r' || *p == '\t')
            fputc(' ', out);
        else if (hostile_control(p, len))
            write_control(out, p, len, "\\\\");
        else if (len == 1 && strchr("|\\`*_[]<>#~!", *p))
            fprintf(out, "\\%c", *p);
        else
            fwrite(p, 1, len, out);
        p += len;
    }
}

const char *report_subject(const report_model *m, char *buf, size_t size)
{
    if (m->run_count == 0) {
        snprintf(buf, size, "no run");
        return buf;
    }
    const report_run *r = &m->runs[0];
    bool same = true;
    for (size_t i = 1; i < m->run_count; i++)
        same = same && !strcmp(m->runs[i].backend, r->backend)
               && !strcmp(m->runs[i].device, r->device) && !strcmp(m->runs[i].driver, r->driver);
    if (!same)
        snprintf(buf, size, "several backends/devices (see Provenance)");
    else if (r->device[0])
        snprintf(buf, size, "%s on %s (%s, driver %s)", r->backend, r->device, r->platform,
                 r->driver);
    else
        snprintf(buf, size, "%s", r->backend);
    return buf;
}

/* ---- provenance --------------------------------------------------------------------- */

const char *report_omitted(const report_model *m, const char *value)
{
    return m->deterministic ? "(omitted: --deterministic)" : value[0] ? value : "unknown";
}

/* What the runtime row holds: the version of OpenCL C for OpenCL ("OpenCL C 1.2"), the
 * plug-in's language or runtime otherwise ("CUDA 12.4"; plugin.h dmlcheck_info.runtime). */
static const char *runtime_label(const char *runtime)
{
    return !strncmp(runtime, "OpenCL C", 8) ? "OpenCL C version" : "runtime";
}

static void provenance_row(report_provenance *p, const char *label, const char *value)
{
    if (p->count < REPORT_PROVENANCE_ROWS)
        p->rows[p->count++] = (report_provenance_row){ label, value };
}

void report_run_provenance(const report_model *m, const report_run *r, report_provenance *p)
{
    p->count = 0;
    snprintf(p->seed, sizeof p->seed, "%" PRIu64, r->seed);
    snprintf(p->cases, sizeof p->cases, "%" PRIu64, r->cases);
    snprintf(p->seconds, sizeof p->seconds, "%.1f s", r->seconds);
    snprintf(p->rate, sizeof p->rate, "%.0f", r->seconds > 0 ? (double)r->cases / r->seconds : 0);
    provenance_row(p, "dmlcheck version", report_omitted(m, r->version));
    provenance_row(p, "git revision", report_omitted(m, r->git_revision));
    provenance_row(p, "seed", p->seed);
    provenance_row(p, "options", r->options);
    if (r->shard[0])
        provenance_row(p, "shard", r->shard);
    provenance_row(p, "command line", report_omitted(m, r->command_line));
    provenance_row(p, "NaN policy", r->nan_policy);
    provenance_row(p, "strict", r->strict ? "yes (every class judged)" : "no");
    provenance_row(p, "status", r->status);
    provenance_row(p, "host", report_omitted(m, r->host));
    provenance_row(p, "backend", r->backend);
    provenance_row(p, "platform", r->platform);
    provenance_row(p, "device", r->device);
    provenance_row(p, "driver version", r->driver);
    provenance_row(p, runtime_label(r->runtime), r->runtime);
    provenance_row(p, "fp config", r->fp_config);
    backend_claims claims;
    dmlc_error ignored; /* report_model_finish read them already: they parse */
    if (r->claims && r->claims[0] && claims_from_json(r->claims, &claims, &ignored))
        provenance_row(p, "claims", claims_describe(&claims, p->claims, sizeof p->claims));
    provenance_row(p, "started", report_omitted(m, r->started));
    provenance_row(p, "finished", report_omitted(m, r->finished));
    provenance_row(p, "cases", p->cases);
    /* Times differ run to run: a deterministic report says they were left out. */
    provenance_row(p, "run time", m->deterministic ? report_omitted(m, "") : p->seconds);
    provenance_row(p, "cases/s", m->deterministic ? report_omitted(m, "") : p->rate);
}

/* ---- NaN-policy fingerprints -------------------------------------------------------- */

static unsigned policies_of(uint64_t cases, const uint64_t *explained)
{
    unsigned mask = 0;
    for (unsigned p = 0; p < NAN_POLICY_COUNT; p++)
        if (cases > 0 && explained[p] == cases)
            mask |= 1u << p;
    return mask;
}

bool report_has_nan_cases(const report_model *m)
{
    for (size_t i = 0; i < m->nan_print_count; i++)
        if (m->nan_prints[i].cases > 0)
            return true;
    return false;
}

unsigned report_nan_policies(const report_nan_fingerprint *f)
{
    return policies_of(f->cases, f->explained);
}

const char *report_nan_fingerprint_text(const report_nan_fingerprint *f, bool baseline, char *buf,
                                        size_t size)
{
    uint64_t cases = baseline ? f->baseline_cases : f->cases;
    const uint64_t *explained = baseline ? f->baseline_explained : f->explained;
    unsigned mask = policies_of(cases, explained);
    char names[160];
    if (cases == 0)
        snprintf(buf, size, "no NaN cases");
    else if (mask)
        snprintf(buf, size, "%s (%" PRIu64 " NaN case%s)", nan_policies_text(mask, names, sizeof names),
                 cases, cases == 1 ? "" : "s");
    else {
        size_t used = (size_t)snprintf(buf, size, "inconsistent (of %" PRIu64 " NaN cases:", cases);
        for (unsigned p = 0; p < NAN_POLICY_COUNT && used < size; p++)
            used += (size_t)snprintf(buf + used, size - used, "%s %s %" PRIu64, p ? "," : "",
                                     nan_policy_id_name((nan_policy_id)p), explained[p]);
        if (used < size)
            snprintf(buf + used, size - used, ")");
    }
    size_t used = strlen(buf);
    if (!baseline && f->left_out && used < size)
        used += (size_t)snprintf(buf + used, size - used, "; %" PRIu64 " more left out: they fail "
                                 "for a judged reason", f->left_out);
    if (!baseline && f->changed_by_bug && used < size)
        snprintf(buf + used, size - used, "; %" PRIu64 " more left out: another bug changed them "
                 "(root cause %s)", f->changed_by_bug, f->changed_by);
    return buf;
}

/* A fingerprint's policies alone, for the change line: "ignore", "inconsistent". */
static const char *policies_word(uint64_t cases, const uint64_t *explained, char *buf, size_t size)
{
    unsigned mask = policies_of(cases, explained);
    return mask ? nan_policies_text(mask, buf, size) : (snprintf(buf, size, "inconsistent"), buf);
}

const char *report_nan_changes(const report_model *m, char *buf, size_t size)
{
    size_t used = 0;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < m->nan_print_count && used < size; i++) {
        const report_nan_fingerprint *f = &m->nan_prints[i];
        if (!f->changed)
            continue;
        char before[160], now[160];
        used += (size_t)snprintf(buf + used, size - used, "%s%s %s: NaN policy changed from %s to %s",
                                 used ? "; " : "", op_table[f->op].name, dtype_name(f->input),
                                 policies_word(f->baseline_cases, f->baseline_explained, before, sizeof before),
                                 policies_word(f->cases, f->explained, now, sizeof now));
    }
    return buf;
}

void report_print_provenance(const report_model *m, const report_provenance_format *f, FILE *out)
{
    for (size_t i = 0; i < m->run_count; i++) {
        report_provenance p;
        report_run_provenance(m, &m->runs[i], &p);
        fprintf(out, f->run_head, m->runs[i].id);
        for (unsigned k = 0; k < p.count; k++) {
            fprintf(out, f->row_head, p.rows[k].label);
            f->escape(out, p.rows[k].value);
            fputs(f->row_tail, out);
        }
        fputs(f->run_tail, out);
    }
}
