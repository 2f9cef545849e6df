// scout.hpp: umbrella header.
#pragma once

#include "scout/analyzer.hpp"
#include "scout/catalog.hpp"
#include "scout/caching_embedder.hpp"
#include "scout/catalog_loader.hpp"
#include "scout/embedder.hpp"
#include "scout/http_embedder.hpp"
#include "scout/enhanced_name.hpp"
#include "scout/options.hpp"
#include "scout/searcher.hpp"
#include "scout/static_embedder.hpp"
#include "scout/status.hpp"
#include "scout/token_counter.hpp"
#include "scout/tool_document.hpp"
#include "scout/types.hpp"
