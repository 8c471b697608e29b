/* The command line: option parsing helpers and one function per command. */
#ifndef SRV_CLI_H
#define SRV_CLI_H

#include <stddef.h>
#include <stdio.h>

/* Matches argv[*i] against "--name=value" or "--name value" (advancing *i);
 * returns 1 on a match with *value set (NULL when the value is missing). */
int srv_cli_option(int argc, char **argv, int *i, const char *name, const char **value);
int srv_cli_long(const char *text, long min, long max, long *out);
/* Prints "gpulab: MESSAGE" and a hint to stderr; returns 2 (usage error). */
int srv_cli_usage(const char *message);
int srv_cli_help(void);

struct cJSON;
struct lab_error;
/* FILE (or "-": standard input) opened for reading, or NULL, said on stderr. */
FILE *srv_cli_open(const char *path);
/* At most max bytes of path and one more (a caller tells "too large" by
 * *n > max) in a new buffer the caller frees; NULL when path cannot be
 * opened (said on stderr, err left clear) or out of memory (err set). */
char *srv_cli_read(const char *path, size_t max, size_t *n, struct lab_error *err);
/* Prints an answer the way explain and doctor do: env as JSON (json) or by
 * print_text; when env is NULL, err as an error envelope (json) or one line
 * on stderr. Frees env; returns the exit status (0, or 1 for an error). */
int srv_cli_answer(struct cJSON *env, const struct lab_error *err, int json, void (*print_text)(const struct cJSON *env));

int srv_cmd_serve(int argc, char **argv);
/* Set when serve stopped at its deadline with a request still stuck in a
 * call that does not return: main then ends the process with _exit, since
 * exit's handlers (a library's destructor) could wait on that request. */
extern int srv_serve_abandoned;
int srv_cmd_worker(int argc, char **argv);
int srv_cmd_device(int argc, char **argv);
int srv_cmd_run(int argc, char **argv);
int srv_cmd_experiments(int argc, char **argv);
int srv_cmd_profiles(int argc, char **argv);
int srv_cmd_calibrate(int argc, char **argv);
int srv_cmd_explain(int argc, char **argv);
int srv_cmd_compare(int argc, char **argv);
int srv_cmd_doctor(int argc, char **argv);
int srv_cmd_plan(int argc, char **argv);

#endif
