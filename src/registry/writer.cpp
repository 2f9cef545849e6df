// writer.cpp: registry::Writer, pushes over one kept connection, opened again when it broke.
#include <mutex>
#include <optional>
#include <utility>

#include "scout/registry/registry.hpp"

#include "registry/pg_connection.hpp"
#include "registry/push_on.hpp"
#include "registry/schema.hpp"

namespace scout::registry {

struct Writer::Impl {
    ConnectOptions connect;
    std::shared_ptr<Embedder> embedder;
    mutable std::mutex mu;  // one push at a time; guards everything below
    std::optional<detail::PgConnection> conn;
    std::size_t connections = 0;

    /// A usable connection with a checked schema: the kept one, or a new one.
    Status ensure_connected() {
        if (conn && conn->ok()) {
            return {};
        }
        conn.reset();
        auto opened = detail::PgConnection::connect(connect);
        if (!opened.ok()) {
            return opened.status();
        }
        ++connections;
        if (Status s = detail::check_schema(*opened); !s.ok()) {
            return s;
        }
        conn.emplace(std::move(opened.value()));
        return {};
    }
};

Writer::Writer(ConnectOptions connect, std::shared_ptr<Embedder> embedder)
    : impl_(std::make_unique<Impl>()) {
    impl_->connect = std::move(connect);
    impl_->embedder = std::move(embedder);
}

Writer::~Writer() = default;
Writer::Writer(Writer&&) noexcept = default;
Writer& Writer::operator=(Writer&&) noexcept = default;

Result<PushResult> Writer::push(const CatalogSpec& spec, PushOptions options) {
    Impl& impl = *impl_;
    std::lock_guard lock(impl.mu);
    // A kept connection may have been dropped by the server since the last push; that shows
    // only when it is used, so a failure on it is tried once more on a new connection.
    const bool kept = impl.conn.has_value() && impl.conn->ok();
    if (Status s = impl.ensure_connected(); !s.ok()) {
        return s;
    }
    auto pushed = push_on(*impl.conn, spec, impl.embedder, options);
    if (pushed.ok() || !kept || impl.conn->ok()) {
        return pushed;  // done, or failed on a fresh or still healthy connection: not retried
    }
    if (Status s = impl.ensure_connected(); !s.ok()) {
        return s;
    }
    return push_on(*impl.conn, spec, impl.embedder, options);
}

std::size_t Writer::connections() const {
    std::lock_guard lock(impl_->mu);
    return impl_->connections;
}

}  // namespace scout::registry
