/* quickstart.c: scout's C ABI (scout/scout.h) in a few calls: index a catalog file, search it
   within one server's scope, print the result JSON. Usage: scout-quickstart-c [catalog.json] */
#include <stdio.h>
#include <stdlib.h>

#include <scout/scout.h>

static char* read_file(const char* path) {
    FILE* file = fopen(path, "rb");
    char* text = NULL;
    long size = 0;
    if (file != NULL && fseek(file, 0, SEEK_END) == 0 && (size = ftell(file)) >= 0 &&
        fseek(file, 0, SEEK_SET) == 0 && (text = malloc((size_t)size + 1)) != NULL) {
        text[fread(text, 1, (size_t)size, file)] = '\0';
    }
    if (file != NULL) {
        fclose(file);
    }
    return text;
}

int main(int argc, char** argv) {
    const char* path = argc > 1 ? argv[1] : "data/enterprise_catalog.json";
    char* servers = read_file(path); /* the catalog file format */
    scout_catalog* catalog = NULL;
    char* result = NULL;
    int ok = servers != NULL &&
             scout_catalog_create("{\"embedder\": \"none\"}", &catalog) == SCOUT_OK &&
             scout_catalog_upsert_servers(catalog, servers) == SCOUT_OK &&
             scout_catalog_commit(catalog, NULL) == SCOUT_OK &&
             scout_catalog_search(catalog,
                                  "create a pull request",
                                  "{\"top_k\": 3, \"servers\": [\"github-enterprise\"]}",
                                  &result) == SCOUT_OK;
    if (ok) {
        puts(result); /* the JSON of `scout search --json` */
    } else {
        fprintf(stderr, "%s\n", servers != NULL ? scout_last_error() : "cannot read the catalog");
    }
    scout_string_free(result);
    scout_catalog_free(catalog);
    free(servers);
    return ok ? 0 : 1;
}
