/* scout_node.c: the native half of the Node.js package scout-mcp (index.js), in C over Node-API and
   scout's C ABI (scout/scout.h). It passes JSON text both ways; index.js turns it into objects.
   A catalog is an external value owning a scout_catalog; close() frees it at once (or, with
   asynchronous commits in flight, when the last of them ends), the garbage collector otherwise.
   Failures throw an Error whose `code` is the status name ("invalid_argument", "not_found",
   ...) and whose message is scout_last_error(). commitAsync runs scout_catalog_commit on a
   Node-API worker thread: the C ABI lets a catalog be used from several threads at once. */
#include <node_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scout/http/scout_http.h>
#include <scout/scout.h>
#include <scout/transformer/scout_transformer.h>

typedef struct CommitWork CommitWork;

typedef struct {
    scout_catalog* catalog;
    int closed;    /* close() was called: every later call throws */
    int in_flight; /* asynchronous commits not yet completed; only the JS thread changes it */
    /* Commits waiting for the one running, in call order: the worker pool runs queued work in
       any order, so only one commit of a catalog is handed to it at a time. */
    CommitWork* waiting_head;
    CommitWork* waiting_tail;
} Handle;

#define CALL(env, call)                                               \
    do {                                                              \
        if ((call) != napi_ok) {                                      \
            throw_message((env), "internal", "Node-API call failed"); \
            return NULL;                                              \
        }                                                             \
    } while (0)

static void throw_message(napi_env env, const char* code, const char* message) {
    bool pending = false;
    if (napi_is_exception_pending(env, &pending) == napi_ok && !pending) {
        napi_throw_error(env, code, message);
    }
}

static napi_value throw_status(napi_env env, scout_status status) {
    throw_message(env, scout_status_name(status), scout_last_error());
    return NULL;
}

static void finalize(napi_env env, void* data, void* hint) {
    Handle* handle = data;
    (void)env;
    (void)hint;
    scout_catalog_free(handle->catalog); /* no commit is in flight: each holds a reference */
    free(handle);
}

/* argv[i] as a malloc'ed UTF-8 string, or NULL (with a TypeError thrown) when it is not one. */
static char* string_argument(napi_env env, napi_value value, const char* name) {
    size_t length = 0;
    char* text = NULL;
    if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) {
        char message[96];
        snprintf(message, sizeof message, "%s must be a string", name);
        napi_throw_type_error(env, "invalid_argument", message);
        return NULL;
    }
    text = malloc(length + 1);
    if (text == NULL) {
        throw_message(env, "internal", "out of memory");
        return NULL;
    }
    if (napi_get_value_string_utf8(env, value, text, length + 1, &length) != napi_ok) {
        free(text);
        throw_message(env, "internal", "Node-API call failed");
        return NULL;
    }
    return text;
}

/* The open catalog of an external value, or NULL (with an Error thrown). */
static Handle* handle_argument(napi_env env, napi_value value) {
    void* data = NULL;
    napi_valuetype type = napi_undefined;
    if (napi_typeof(env, value, &type) != napi_ok || type != napi_external ||
        napi_get_value_external(env, value, &data) != napi_ok) {
        napi_throw_type_error(env, "invalid_argument", "not a scout catalog");
        return NULL;
    }
    if (((Handle*)data)->closed) {
        napi_throw_error(env, "invalid_argument", "the catalog is closed");
        return NULL;
    }
    return data;
}

static napi_value string_result(napi_env env, const char* text) {
    napi_value out = NULL;
    CALL(env, napi_create_string_utf8(env, text != NULL ? text : "", NAPI_AUTO_LENGTH, &out));
    return out;
}

/* Reads up to `count` arguments; missing ones are undefined. */
static int arguments(napi_env env, napi_callback_info info, size_t count, napi_value* argv) {
    size_t given = count;
    return napi_get_cb_info(env, info, &given, argv, NULL, NULL) == napi_ok;
}

static napi_value version(napi_env env, napi_callback_info info) {
    (void)info;
    return string_result(env, scout_version());
}

/* create(optionsJson) and open(path, optionsJson): a new external catalog. */
static napi_value make_catalog(napi_env env, napi_callback_info info, int open) {
    napi_value argv[2];
    napi_value out = NULL;
    char* first = NULL;
    char* second = NULL;
    scout_catalog* catalog = NULL;
    scout_status status = SCOUT_OK;
    Handle* handle = NULL;
    if (!arguments(env, info, 2, argv) ||
        (first = string_argument(env, argv[0], "options")) == NULL ||
        (open && (second = string_argument(env, argv[1], "options")) == NULL)) {
        free(first);
        return NULL;
    }
    status =
        open ? scout_catalog_open(first, second, &catalog) : scout_catalog_create(first, &catalog);
    free(first);
    free(second);
    if (status != SCOUT_OK) {
        return throw_status(env, status);
    }
    handle = calloc(1, sizeof *handle);
    if (handle == NULL) {
        scout_catalog_free(catalog);
        throw_message(env, "internal", "out of memory");
        return NULL;
    }
    handle->catalog = catalog;
    if (napi_create_external(env, handle, finalize, NULL, &out) != napi_ok) {
        finalize(env, handle, NULL);
        throw_message(env, "internal", "Node-API call failed");
        return NULL;
    }
    return out;
}

static napi_value create(napi_env env, napi_callback_info info) {
    return make_catalog(env, info, 0);
}

static napi_value open_index(napi_env env, napi_callback_info info) {
    return make_catalog(env, info, 1);
}

static napi_value close_catalog(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    void* data = NULL;
    if (!arguments(env, info, 1, argv) || napi_get_value_external(env, argv[0], &data) != napi_ok) {
        napi_throw_type_error(env, "invalid_argument", "not a scout catalog");
        return NULL;
    }
    ((Handle*)data)->closed = 1;
    if (((Handle*)data)->in_flight == 0) { /* else the last commit to end frees it */
        scout_catalog_free(((Handle*)data)->catalog);
        ((Handle*)data)->catalog = NULL;
    }
    return NULL;
}

/* upsert(catalog, serversJson), remove(catalog, server), save(catalog, path). */
static napi_value with_text(napi_env env, napi_callback_info info, int which) {
    napi_value argv[2];
    Handle* handle = NULL;
    char* text = NULL;
    scout_status status = SCOUT_OK;
    if (!arguments(env, info, 2, argv) || (handle = handle_argument(env, argv[0])) == NULL ||
        (text = string_argument(env, argv[1], which == 2 ? "path" : "argument")) == NULL) {
        return NULL;
    }
    status = which == 0   ? scout_catalog_upsert_servers(handle->catalog, text)
             : which == 1 ? scout_catalog_remove_server(handle->catalog, text)
                          : scout_catalog_save(handle->catalog, text);
    free(text);
    return status == SCOUT_OK ? NULL : throw_status(env, status);
}

static napi_value upsert(napi_env env, napi_callback_info info) {
    return with_text(env, info, 0);
}

static napi_value remove_server(napi_env env, napi_callback_info info) {
    return with_text(env, info, 1);
}

static napi_value save(napi_env env, napi_callback_info info) {
    return with_text(env, info, 2);
}

/* commit(catalog) and stats(catalog): JSON text. */
static napi_value json_of(napi_env env, napi_callback_info info, int stats) {
    napi_value argv[1];
    Handle* handle = NULL;
    char* json = NULL;
    scout_status status = SCOUT_OK;
    napi_value out = NULL;
    if (!arguments(env, info, 1, argv) || (handle = handle_argument(env, argv[0])) == NULL) {
        return NULL;
    }
    status = stats ? scout_catalog_stats(handle->catalog, &json)
                   : scout_catalog_commit(handle->catalog, &json);
    if (status != SCOUT_OK) {
        return throw_status(env, status);
    }
    out = string_result(env, json);
    scout_string_free(json);
    return out;
}

static napi_value commit(napi_env env, napi_callback_info info) {
    return json_of(env, info, 0);
}

static napi_value stats(napi_env env, napi_callback_info info) {
    return json_of(env, info, 1);
}

/* commitAsync(catalog): a Promise of commit()'s JSON text. The commit runs on a worker thread;
   the external value stays referenced until it ends, so neither the garbage collector nor
   close() frees the catalog under it. Commits of one catalog run and settle in call order. */
struct CommitWork {
    Handle* handle;
    CommitWork* next; /* in the handle's waiting list */
    napi_ref keep;
    napi_deferred deferred;
    napi_async_work work;
    scout_status status;
    char* json;  /* on success, from scout_catalog_commit */
    char* error; /* on failure, scout_last_error() of the worker thread, copied there */
};

static char* copy_text(const char* text) {
    const size_t size = strlen(text) + 1;
    char* out = malloc(size);
    if (out != NULL) {
        memcpy(out, text, size);
    }
    return out;
}

static void commit_execute(napi_env env, void* data) {
    CommitWork* work = data;
    (void)env;
    work->status = scout_catalog_commit(work->handle->catalog, &work->json);
    if (work->status != SCOUT_OK) {
        work->error = copy_text(scout_last_error());
    }
}

/* Settles the work's promise with what the commit gave, or with `failure` when it did not run. */
static void settle(napi_env env, CommitWork* work, napi_status status) {
    napi_value value = NULL;
    napi_value code = NULL;
    napi_value message = NULL;
    if (status == napi_ok && work->status == SCOUT_OK &&
        napi_create_string_utf8(env, work->json, NAPI_AUTO_LENGTH, &value) == napi_ok) {
        napi_resolve_deferred(env, work->deferred, value);
        return;
    }
    const char* name = status == napi_ok && work->status != SCOUT_OK
                           ? scout_status_name(work->status)
                           : "internal";
    const char* text = work->error != NULL ? work->error : "the commit did not run";
    if (napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &code) == napi_ok &&
        napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &message) == napi_ok &&
        napi_create_error(env, code, message, &value) == napi_ok) {
        napi_reject_deferred(env, work->deferred, value);
    }
}

/* Frees a settled work; the last one of a closed catalog frees the catalog. */
static void finish(napi_env env, CommitWork* work) {
    Handle* handle = work->handle;
    handle->in_flight -= 1;
    if (handle->closed && handle->in_flight == 0) {
        scout_catalog_free(handle->catalog);
        handle->catalog = NULL;
    }
    scout_string_free(work->json);
    free(work->error);
    napi_delete_reference(env, work->keep);
    napi_delete_async_work(env, work->work);
    free(work);
}

/* Hands the oldest waiting commit to the worker pool; one that cannot be queued is rejected. */
static void start_next(napi_env env, Handle* handle) {
    while (handle->waiting_head != NULL) {
        CommitWork* work = handle->waiting_head;
        handle->waiting_head = work->next;
        if (handle->waiting_head == NULL) {
            handle->waiting_tail = NULL;
        }
        if (napi_queue_async_work(env, work->work) == napi_ok) {
            return;
        }
        settle(env, work, napi_generic_failure);
        finish(env, work);
    }
}

static void commit_complete(napi_env env, napi_status status, void* data) {
    CommitWork* work = data;
    Handle* handle = work->handle;
    settle(env, work, status);
    finish(env, work);
    start_next(env, handle);
}

static napi_value commit_async(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    napi_value name = NULL;
    napi_value promise = NULL;
    Handle* handle = NULL;
    CommitWork* work = NULL;
    if (!arguments(env, info, 1, argv) || (handle = handle_argument(env, argv[0])) == NULL) {
        return NULL;
    }
    work = calloc(1, sizeof *work);
    if (work == NULL) {
        throw_message(env, "internal", "out of memory");
        return NULL;
    }
    work->handle = handle;
    if (napi_create_string_utf8(env, "scout.commit", NAPI_AUTO_LENGTH, &name) != napi_ok ||
        napi_create_reference(env, argv[0], 1, &work->keep) != napi_ok) {
        free(work);
        throw_message(env, "internal", "Node-API call failed");
        return NULL;
    }
    if (napi_create_async_work(
            env, NULL, name, commit_execute, commit_complete, work, &work->work) != napi_ok ||
        napi_create_promise(env, &work->deferred, &promise) != napi_ok) {
        if (work->work != NULL) {
            napi_delete_async_work(env, work->work);
        }
        napi_delete_reference(env, work->keep);
        free(work);
        throw_message(env, "internal", "Node-API call failed");
        return NULL;
    }
    if (handle->in_flight > 0) { /* a commit is running: this one waits for it, in order */
        if (handle->waiting_tail != NULL) {
            handle->waiting_tail->next = work;
        } else {
            handle->waiting_head = work;
        }
        handle->waiting_tail = work;
    } else if (napi_queue_async_work(env, work->work) != napi_ok) {
        /* The promise is dropped unsettled; the caller gets the exception instead. */
        napi_delete_async_work(env, work->work);
        napi_delete_reference(env, work->keep);
        free(work);
        throw_message(env, "internal", "Node-API call failed");
        return NULL;
    }
    handle->in_flight += 1;
    return promise;
}

/* search(catalog, query, optionsJson): the JSON of `scout search --json`. */
static napi_value search(napi_env env, napi_callback_info info) {
    napi_value argv[3];
    Handle* handle = NULL;
    char* query = NULL;
    char* options = NULL;
    char* json = NULL;
    scout_status status = SCOUT_OK;
    napi_value out = NULL;
    if (!arguments(env, info, 3, argv) || (handle = handle_argument(env, argv[0])) == NULL ||
        (query = string_argument(env, argv[1], "query")) == NULL ||
        (options = string_argument(env, argv[2], "options")) == NULL) {
        free(query);
        return NULL;
    }
    status = scout_catalog_search(handle->catalog, query, options, &json);
    free(query);
    free(options);
    if (status != SCOUT_OK) {
        return throw_status(env, status);
    }
    out = string_result(env, json);
    scout_string_free(json);
    return out;
}

/* doctor(serversJson, optionsJson): the JSON of `scout doctor --json`. */
static napi_value doctor(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    char* servers = NULL;
    char* options = NULL;
    char* json = NULL;
    scout_status status = SCOUT_OK;
    napi_value out = NULL;
    if (!arguments(env, info, 2, argv) ||
        (servers = string_argument(env, argv[0], "servers")) == NULL ||
        (options = string_argument(env, argv[1], "options")) == NULL) {
        free(servers);
        return NULL;
    }
    status = scout_doctor(servers, options, &json);
    free(servers);
    free(options);
    if (status != SCOUT_OK) {
        return throw_status(env, status);
    }
    out = string_result(env, json);
    scout_string_free(json);
    return out;
}

static napi_value init(napi_env env, napi_value exports) {
    /* The addon offers every embedder: the components are linked in, and registered here. In
     * the CMake build a component left out registers a stand-in that refuses its embedder with
     * the reason; compiled against an installed scout without it (install.js), the addon defines
     * SCOUT_NODE_WITHOUT_<COMPONENT> and the core's own refusal names the component. */
#ifndef SCOUT_NODE_WITHOUT_HTTP
    scout_http_register();
#endif
#ifndef SCOUT_NODE_WITHOUT_TRANSFORMER
    scout_transformer_register();
#endif
    const napi_property_descriptor functions[] = {
        {"version", NULL, version, NULL, NULL, NULL, napi_default, NULL},
        {"create", NULL, create, NULL, NULL, NULL, napi_default, NULL},
        {"open", NULL, open_index, NULL, NULL, NULL, napi_default, NULL},
        {"close", NULL, close_catalog, NULL, NULL, NULL, napi_default, NULL},
        {"upsert", NULL, upsert, NULL, NULL, NULL, napi_default, NULL},
        {"remove", NULL, remove_server, NULL, NULL, NULL, napi_default, NULL},
        {"save", NULL, save, NULL, NULL, NULL, napi_default, NULL},
        {"commit", NULL, commit, NULL, NULL, NULL, napi_default, NULL},
        {"commitAsync", NULL, commit_async, NULL, NULL, NULL, napi_default, NULL},
        {"stats", NULL, stats, NULL, NULL, NULL, napi_default, NULL},
        {"search", NULL, search, NULL, NULL, NULL, napi_default, NULL},
        {"doctor", NULL, doctor, NULL, NULL, NULL, napi_default, NULL},
    };
    if (napi_define_properties(env, exports, sizeof functions / sizeof functions[0], functions) !=
        napi_ok) {
        return NULL;
    }
    return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
