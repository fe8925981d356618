/*
 * zip_dup ARCHIVE FILE... — append FILEs (paths relative to the working directory, stored
 * under the same names) to an existing zip archive once more, so the archive holds each of
 * them twice, byte for byte the same. Builds the duplicate-entry test FMU (Roberts), as
 * some exporters write them; `cmake -E tar` cannot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

static int append(zipFile zf, const char *name)
{
    FILE *f = fopen(name, "rb");
    if (!f) {
        perror(name);
        return 1;
    }
    zip_fileinfo zi;
    memset(&zi, 0, sizeof zi);
    int rc = zipOpenNewFileInZip64(zf, name, &zi, NULL, 0, NULL, 0, NULL, Z_DEFLATED,
                                   Z_DEFAULT_COMPRESSION, 0);
    char buf[4096];
    size_t n;
    while (rc == ZIP_OK && (n = fread(buf, 1, sizeof buf, f)) > 0)
        rc = zipWriteInFileInZip(zf, buf, (unsigned)n);
    if (rc == ZIP_OK && ferror(f))
        rc = ZIP_ERRNO;
    fclose(f);
    int rc2 = zipCloseFileInZip(zf);
    return rc != ZIP_OK || rc2 != ZIP_OK;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: zip_dup ARCHIVE FILE...\n");
        return 2;
    }
    zipFile zf = zipOpen64(argv[1], APPEND_STATUS_ADDINZIP);
    if (!zf) {
        fprintf(stderr, "%s: cannot open for appending\n", argv[1]);
        return 1;
    }
    int bad = 0;
    for (int i = 2; i < argc && !bad; i++)
        bad = append(zf, argv[i]);
    if (zipClose(zf, NULL) != ZIP_OK)
        bad = 1;
    return bad;
}
