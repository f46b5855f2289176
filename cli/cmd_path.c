/*
 * cmd_path.c: `dmlcheck path [NAME]`: where this dmlcheck's data is (paths.h): the conformance
 * corpus, the Python helper, the adapters, the example plug-in's source and built copy.
 * Exit 0 when the path exists, 1 when it does not (not installed), 2 on usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "paths.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: dmlcheck path [NAME]\n\n"
               "Prints where this dmlcheck's data is: with NAME, that one path alone (for the shell:\n"
               "PYTHONPATH=$(dmlcheck path python)); without, every NAME and its path.  An installed\n"
               "dmlcheck finds share/dmlcheck and <libdir>/dmlcheck next to its bindir; one run\n"
               "from its build directory names the source and build trees.\n\nnames:\n");
    for (int k = 0; k < PATH_COUNT; k++)
        fprintf(f, "  %-15s %s\n", paths_key_name((paths_key)k), paths_key_summary((paths_key)k));
    fprintf(f, "\nexit status: 0 the path exists, 1 it does not (not installed there), 2 usage\n");
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int cmd_path(int argc, char **argv)
{
    static const struct option options[] = {
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        usage(ch == 'h' ? stdout : stderr);
        return ch == 'h' ? 0 : 2;
    }
    dmlcheck_paths p;
    paths_find(&p);
    if (optind == argc) {
        int rc = 0;
        for (int k = 0; k < PATH_COUNT; k++) {
            bool there = exists(p.path[k]);
            printf("%-15s %s%s\n", paths_key_name((paths_key)k), p.path[k], there ? "" : "  (missing)");
            rc |= !there;
        }
        printf("(%s)\n", p.origin);
        return rc;
    }
    if (optind + 1 != argc) {
        usage(stderr);
        return 2;
    }
    paths_key k;
    if (!paths_key_from_name(argv[optind], &k)) {
        fprintf(stderr, "dmlcheck path: unknown name '%s'\n\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    printf("%s\n", p.path[k]);
    if (!exists(p.path[k])) {
        fprintf(stderr, "dmlcheck path: %s does not exist (%s); is dmlcheck installed? "
                        "meson install -C build\n", p.path[k], p.origin);
        return 1;
    }
    return 0;
}
