// push_on.hpp: a push over a connection the caller holds (registry::push opens one per push;
// registry::Writer keeps one between pushes).
#pragma once

#include <memory>

#include "scout/registry/registry.hpp"

#include "registry/pg_connection.hpp"

namespace scout::registry {

/// registry::push on `connection`, whose schema the caller has checked. A failure may leave the
/// connection broken (connection.ok() false); the transaction is then rolled back or unknown.
[[nodiscard]] Result<PushResult> push_on(detail::PgConnection& connection,
                                         const CatalogSpec& spec,
                                         const std::shared_ptr<Embedder>& embedder,
                                         const PushOptions& options);

}  // namespace scout::registry
