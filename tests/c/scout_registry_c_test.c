/* scout_registry_c_test.c: the registry's C ABI (scout/scout_registry.h) from a C99 program
   against a PostgreSQL registry that tests/c/registry_c_test.sh started and filled: a replica
   opened from a URL (a URL carrying a password refused; the password from a file), its status,
   a search, and read-your-writes (a search that asks for a change not made yet waits and fails,
   then succeeds once another writer pushes it), and an outcome recorded on one replica learned
   by another through the registry. Arguments: the socket URL, the TCP URL, a file
   holding the password, a file holding a wrong one, and a shell command that pushes the
   "pager" server. Prints "N passed, N failed" and exits non-zero on any failure. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scout/scout_registry.h"

static int passed = 0;
static int failed = 0;

#define CHECK(cond)                                              \
    do {                                                         \
        if (cond) {                                              \
            ++passed;                                            \
        } else {                                                 \
            ++failed;                                            \
            fprintf(stderr,                                      \
                    "%s:%d: CHECK(%s) failed; last error: %s\n", \
                    __FILE__,                                    \
                    __LINE__,                                    \
                    #cond,                                       \
                    scout_last_error());                         \
        }                                                        \
    } while (0)

static int contains(const char* text, const char* needle) {
    return text != NULL && strstr(text, needle) != NULL;
}

/* The number after "key": in a JSON text, -1 when absent. */
static long json_number(const char* text, const char* key) {
    char pattern[64];
    const char* at = NULL;
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    at = text == NULL ? NULL : strstr(text, pattern);
    return at == NULL ? -1 : strtol(at + strlen(pattern), NULL, 10);
}

static const char* const kOptions = "{\"embedder\": \"hashing:32\"}";

static void test_bad_input(const char* tcp_url, const char* wrong_password_file) {
    scout_replica* replica = NULL;
    char options[1024];
    CHECK(scout_replica_open(NULL, kOptions, &replica) == SCOUT_INVALID_ARGUMENT);
    CHECK(scout_replica_open("postgresql://scout:secret@127.0.0.1/postgres", kOptions, &replica) ==
          SCOUT_INVALID_ARGUMENT);
    CHECK(contains(scout_last_error(), "password"));
    CHECK(!contains(scout_last_error(), "secret"));
    CHECK(replica == NULL);
    CHECK(scout_replica_open(tcp_url, "{\"registry\": {\"colour\": 1}}", &replica) ==
          SCOUT_INVALID_ARGUMENT);
    CHECK(contains(scout_last_error(), "colour"));
    CHECK(scout_replica_open(tcp_url, "{\"registry\": {\"degraded_ttl_s\": 0}}", &replica) ==
          SCOUT_INVALID_ARGUMENT);
    CHECK(scout_replica_open(tcp_url, "{\"registry\": 3}", &replica) == SCOUT_INVALID_ARGUMENT);
    CHECK(scout_replica_open(tcp_url, "{not json", &replica) == SCOUT_INVALID_ARGUMENT);
    snprintf(options,
             sizeof options,
             "{\"embedder\": \"hashing:32\", \"registry\": {\"password_file\": \"%s\", "
             "\"connect_timeout_ms\": 5000}}",
             wrong_password_file);
    CHECK(scout_replica_open(tcp_url, options, &replica) == SCOUT_UNAVAILABLE);
    CHECK(replica == NULL);
    CHECK(scout_replica_status(NULL, NULL) == SCOUT_INVALID_ARGUMENT);
    CHECK(scout_replica_search(NULL, "x", NULL, 0, 0, NULL) == SCOUT_INVALID_ARGUMENT);
    scout_replica_free(NULL);
}

static void test_follow(const char* url,
                        const char* tcp_url,
                        const char* password_file,
                        const char* push_command) {
    scout_replica* replica = NULL;
    scout_replica* over_tcp = NULL;
    char* out = NULL;
    char options[1024];
    long applied = 0;

    CHECK(scout_replica_open(url, kOptions, &replica) == SCOUT_OK);
    if (replica == NULL) {
        return;
    }
    CHECK(scout_replica_status(replica, &out) == SCOUT_OK);
    applied = json_number(out, "applied_seq");
    CHECK(applied > 0);
    CHECK(json_number(out, "head_seq") == applied);
    CHECK(json_number(out, "lag") == 0);
    CHECK(contains(out, "\"degraded_served\":[]"));
    scout_string_free(out);
    out = NULL;

    CHECK(scout_replica_search(replica, "open a pull request", "{\"top_k\": 3}", 0, 0, &out) ==
          SCOUT_OK);
    CHECK(contains(out, "create_pull_request"));
    scout_string_free(out);
    out = NULL;
    CHECK(scout_replica_search(replica, "x", NULL, 0, 600001, &out) == SCOUT_INVALID_ARGUMENT);

    /* A change not made yet: the search waits its timeout, then says which numbers. */
    CHECK(scout_replica_search(
              replica, "page the engineer on call", NULL, (uint64_t)applied + 1, 200, &out) ==
          SCOUT_UNAVAILABLE);
    CHECK(contains(scout_last_error(), "not applied"));
    CHECK(out == NULL);

    /* Another writer makes it: a search asking for it sees it. */
    CHECK(system(push_command) == 0);
    CHECK(scout_replica_search(
              replica, "page the engineer on call", NULL, (uint64_t)applied + 1, 10000, &out) ==
          SCOUT_OK);
    CHECK(contains(out, "page_oncall"));
    scout_string_free(out);
    out = NULL;
    CHECK(scout_replica_status(replica, &out) == SCOUT_OK);
    CHECK(json_number(out, "applied_seq") == applied + 1);
    scout_string_free(out);
    out = NULL;

    /* Over TCP, the password from a file. */
    snprintf(options,
             sizeof options,
             "{\"embedder\": \"hashing:32\", \"registry\": {\"password_file\": \"%s\", "
             "\"poll_interval_ms\": 200, \"degraded_ttl_s\": 3600}}",
             password_file);
    CHECK(scout_replica_open(tcp_url, options, &over_tcp) == SCOUT_OK);
    CHECK(scout_replica_search(
              over_tcp, "page the engineer on call", NULL, (uint64_t)applied + 1, 0, &out) ==
          SCOUT_OK);
    CHECK(contains(out, "page_oncall"));
    scout_string_free(out);
    out = NULL;

    /* Shared learning: an outcome recorded on one replica reaches the other's prior. */
    CHECK(scout_replica_record_outcome(NULL, "q", "github", "list_issues", 1) ==
          SCOUT_INVALID_ARGUMENT);
    CHECK(scout_replica_record_outcome(replica, NULL, "github", "list_issues", 1) ==
          SCOUT_INVALID_ARGUMENT);
    CHECK(scout_replica_record_outcome(replica, "list issues", "github", "no_such_tool", 1) ==
          SCOUT_NOT_FOUND);
    CHECK(scout_replica_record_outcome(replica, "list issues", "github", "list_issues", 1) ==
          SCOUT_OK);
    CHECK(scout_replica_record_outcome(replica, "list issues", "github", "list_issues", 0) ==
          SCOUT_OK);
    {
        long learned = 0;
        int tries = 0;
        const struct timespec pause = {0, 50 * 1000 * 1000};
        /* Bounded: both followers poll every 200 ms or less. */
        for (tries = 0; tries < 400 && learned < 2; ++tries) {
            if (scout_replica_status(over_tcp, &out) == SCOUT_OK) {
                learned = json_number(out, "outcome_events_applied");
                scout_string_free(out);
                out = NULL;
            }
            if (learned < 2) {
                nanosleep(&pause, NULL);
            }
        }
        CHECK(learned == 2);
    }
    CHECK(scout_replica_status(replica, &out) == SCOUT_OK);
    CHECK(json_number(out, "outcomes_recorded") == 2);
    CHECK(json_number(out, "outcomes_dropped") == 0);
    scout_string_free(out);
    scout_replica_free(over_tcp);
    scout_replica_free(replica);
}

int main(int argc, char** argv) {
    if (argc != 6) {
        fprintf(stderr,
                "usage: scout_registry_c_test URL TCP_URL PASSWORD_FILE WRONG_PASSWORD_FILE "
                "PUSH_COMMAND\n");
        return 2;
    }
    test_bad_input(argv[2], argv[4]);
    test_follow(argv[1], argv[2], argv[3], argv[5]);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
