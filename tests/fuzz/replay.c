// SPDX-License-Identifier: BSD-3-Clause
/*
 * Replays fuzz inputs without libFuzzer: every regular file of each directory (or each file)
 * given on the command line is passed to LLVMFuzzerTestOneInput() once. Lets the seed corpus
 * and the crashers found so far run as a normal test.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
replay_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	FILE *fp;
	size_t len;

	fp = fopen(path, "rb");
	if (!fp) {
		fprintf(stderr, "replay: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(fp), &st) || st.st_size < 0) {
		fclose(fp);
		return -1;
	}
	len = (size_t)st.st_size;
	buf = malloc(len ? len : 1); /* exact size: the harness must not read past it */
	if (!buf || fread(buf, 1, len, fp) != len) {
		fprintf(stderr, "replay: cannot read '%s'\n", path);
		free(buf);
		fclose(fp);
		return -1;
	}
	fclose(fp);

	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int
replay_dir(const char *dir, int *count)
{
	struct dirent *ent;
	DIR *dp = opendir(dir);
	int err = 0;

	if (!dp) {
		fprintf(stderr, "replay: cannot open directory '%s': %s\n", dir, strerror(errno));
		return -1;
	}
	while ((ent = readdir(dp))) {
		struct stat st;
		char *path;

		if (ent->d_name[0] == '.') {
			continue;
		}
		path = malloc(strlen(dir) + strlen(ent->d_name) + 2);
		if (!path) {
			err = -1;
			break;
		}
		sprintf(path, "%s/%s", dir, ent->d_name);
		if (!stat(path, &st) && S_ISREG(st.st_mode)) {
			err |= replay_file(path);
			*count += 1;
		}
		free(path);
	}
	closedir(dp);
	return err;
}

int
main(int argc, char **argv)
{
	int count = 0, err = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s <corpus dir or file>...\n", argv[0]);
		return 1;
	}
	for (int i = 1; i < argc; ++i) {
		struct stat st;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: '%s': %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (S_ISDIR(st.st_mode)) {
			err |= replay_dir(argv[i], &count);
		} else {
			err |= replay_file(argv[i]);
			count++;
		}
	}
	printf("replayed %d inputs\n", count);

	return (err || !count) ? 1 : 0;
}
