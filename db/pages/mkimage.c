/*
 * mkimage.c - build tool: the empty database that db_create() writes out.
 *
 * usage: mkimage SCHEMA.sql OUT.db
 *
 * Creating the schema statement by statement costs about a millisecond and a
 * half per database; copying a file built once at build time costs a tenth
 * of that.  The image is an ordinary SQLite file holding db/schema.sql.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	sqlite3 *db = NULL;
	char *sql, *msg = NULL;
	long n;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: mkimage SCHEMA.sql OUT.db\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0) {
		perror(argv[1]);
		return 1;
	}
	sql = malloc((size_t)n + 1);
	if (!sql || fread(sql, 1, (size_t)n, f) != (size_t)n) {
		perror(argv[1]);
		return 1;
	}
	sql[n] = 0;
	fclose(f);
	unlink(argv[2]);
	if (sqlite3_open(argv[2], &db) != SQLITE_OK ||
	    sqlite3_exec(db, "BEGIN", NULL, NULL, &msg) != SQLITE_OK ||
	    sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK ||
	    sqlite3_exec(db, "COMMIT; VACUUM", NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "mkimage: %s\n", msg ? msg : sqlite3_errmsg(db));
		sqlite3_close(db);
		unlink(argv[2]);
		return 1;
	}
	free(sql);
	return sqlite3_close(db) == SQLITE_OK ? 0 : 1;
}
