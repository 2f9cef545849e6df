// scout.hpp: umbrella header: the whole public API of the core library.
#pragma once

#include "scout/catalog.hpp"
#include "scout/catalog_loader.hpp"
#include "scout/doctor.hpp"
#include "scout/embedder.hpp"
#include "scout/events.hpp"
#include "scout/options.hpp"
#include "scout/reranker.hpp"
#include "scout/searcher.hpp"
#include "scout/status.hpp"
#include "scout/token_budget.hpp"
#include "scout/token_counter.hpp"
#include "scout/types.hpp"
