/* scout_http.h: the C registration of the component scout::http (libscout_http), which makes
   the C ABI's {"kind": "http"} embedder setting work. Plain C99. */
#ifndef SCOUT_HTTP_H
#define SCOUT_HTTP_H

#include "scout/export.hpp"

#ifdef __cplusplus
extern "C" {
#endif

/** Lets libscout make HTTP embedders (scout_catalog_create with {"kind": "http", ...}). Call
    once, before such a catalog is made; calling it again does nothing more. Thread-safe. */
SCOUT_API void scout_http_register(void);

#ifdef __cplusplus
}
#endif

#endif /* SCOUT_HTTP_H */
