/* test_error.c: error messages (model/error.h) keep their reason and print as text (issue 23,
 * defects 7 and 10): a message longer than ERR_MSG_MAX is cut in its middle, so the end that
 * says what went wrong stays; err_prefix escapes what it adds and keeps the old reason; an
 * argument may be the message itself; err_printable writes C0, DEL, C1 and bytes that are no
 * UTF-8 as \xHH and keeps valid UTF-8. */
#include <string.h>

#include "error.h"
#include "tap.h"

static bool long_path_keeps_the_reason(void)
{
    char path[3000];
    memset(path, 'p', sizeof path - 1);
    path[sizeof path - 1] = 0;
    dmlc_error e;
    err_set(&e, "%s: cannot open: No such file or directory", path);
    size_t n = strlen(e.msg);
    return n < ERR_MSG_MAX && n > ERR_MSG_MAX - 64 && strstr(e.msg, " bytes cut] ... ")
        && !strcmp(e.msg + n - 40, ": cannot open: No such file or directory")
        && !strncmp(e.msg, "pppp", 4);
}

static bool prefix_keeps_the_reason_and_escapes(void)
{
    char path[3000];
    memset(path, 'q', sizeof path - 1);
    path[sizeof path - 1] = 0;
    dmlc_error e;
    err_set(&e, "the reason");
    err_prefix(&e, "%s\x1b[31m", path);
    size_t n = strlen(e.msg);
    static const char end[] = "\\x1b[31m: the reason";
    bool long_ok = n < ERR_MSG_MAX && n > sizeof end && !strcmp(e.msg + n - (sizeof end - 1), end);
    err_set(&e, "reason");
    err_prefix(&e, "file\x07");
    return long_ok && !strcmp(e.msg, "file\\x07: reason");
}

static bool message_as_its_own_argument(void)
{
    dmlc_error e;
    err_set(&e, "first");
    err_set(&e, "%s; then %s", e.msg, "second");
    return !strcmp(e.msg, "first; then second");
}

static bool printable_escapes_controls_keeps_utf8(void)
{
    char out[128];
    err_printable("a\x1b]0;t\x07\x7f\xc2\x9b\xff\xe2\x86\x92\n", false, out, sizeof out);
    bool one = !strcmp(out, "a\\x1b]0;t\\x07\\x7f\\xc2\\x9b\\xff\xe2\x86\x92\\x0a");
    err_printable("line\nnext", true, out, sizeof out);
    return one && !strcmp(out, "line\nnext");
}

int main(void)
{
    tap t;
    tap_plan(&t, 4);
    tap_ok(&t, long_path_keeps_the_reason(), "a_long_path_is_cut_in_the_middle_keeping_the_reason");
    tap_ok(&t, prefix_keeps_the_reason_and_escapes(), "err_prefix_keeps_the_reason_and_escapes");
    tap_ok(&t, message_as_its_own_argument(), "a_message_may_quote_itself");
    tap_ok(&t, printable_escapes_controls_keeps_utf8(), "err_printable_escapes_c0_del_c1_bad_utf8");
    return tap_done(&t);
}
