/* Temporary: replaced by cli/report.c and cli/run.c. */
#include "cli/cli.h"
int cmd_report(int argc, char **argv) { (void)argc; (void)argv; return error("report: not built yet"); }
int cmd_run(int argc, char **argv) { (void)argc; (void)argv; return error("run: not built yet"); }
