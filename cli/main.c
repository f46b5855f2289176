/* main.c: `dmlcheck` entry point: dispatches to the subcommands listed in commands.def. */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "op.h"

#define CMD(name, summary) int cmd_##name(int argc, char **argv);
#include "commands.def"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
#define CMD(name, summary) { #name, cmd_##name, summary },
#include "commands.def"
};

static void usage(FILE *f)
{
    fprintf(f, "usage: dmlcheck COMMAND [OPTIONS] [ARGS]\n\n"
               "Conformance and fuzz testing of implementations of DirectML operators against\n"
               "a bit-exact reference.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nbackends:");
    for (size_t i = 0; backend_registry[i]; i++)
        fprintf(f, " %s", backend_registry[i]->name);
    fprintf(f, "\noperators:");
    for (int i = 0; i < OP_COUNT; i++)
        fprintf(f, " %s", op_table[i].name);
    fprintf(f, "\n\n'dmlcheck help COMMAND' (or 'dmlcheck COMMAND --help') describes a command.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "help") && argc > 2) /* "help run" is "run --help" */
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (!strcmp(argv[2], commands[i].name))
                return commands[i].run(2, (char *[]){ argv[2], "--help", NULL });
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(argc > 2 ? stderr : stdout);
        if (argc > 2)
            fprintf(stderr, "\ndmlcheck help: unknown command '%s'\n", argv[2]);
        return argc > 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("dmlcheck %s\n", DMLCHECK_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "dmlcheck: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
