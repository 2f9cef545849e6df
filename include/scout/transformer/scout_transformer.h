/* scout_transformer.h: the C registration of the component scout::transformer
   (libscout_transformer), which makes the C ABI's "transformer:DIR" embedder setting work.
   Plain C99. */
#ifndef SCOUT_TRANSFORMER_H
#define SCOUT_TRANSFORMER_H

#include "scout/export.hpp"

#ifdef __cplusplus
extern "C" {
#endif

/** Lets libscout load transformer embedders (scout_catalog_create with "transformer:DIR" or
    {"kind": "transformer", "dir": ...}). Call once, before such a catalog is made; calling it
    again does nothing more. Thread-safe. */
SCOUT_API void scout_transformer_register(void);

#ifdef __cplusplus
}
#endif

#endif /* SCOUT_TRANSFORMER_H */
