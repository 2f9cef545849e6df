// served_gateway.hpp: a gateway with no backends behind the Streamable HTTP transport on a free
// loopback port, with two callers (admin, and files limited to one server), for the HTTP tests.
#pragma once

#include <httplib.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "scout/catalog.hpp"

#include "auth.hpp"
#include "gateway.hpp"
#include "http_transport.hpp"

namespace scout::gateway::http_test {

inline constexpr const char* kAdminToken = "admin-token-0123456789";
inline constexpr const char* kFilesToken = "files-token-0123456789";

inline AuthTable two_callers() {
    auto table = AuthTable::parse(std::string(R"({"callers": [
        {"name": "admin", "token": ")") +
                                  kAdminToken + R"("},
        {"name": "files", "token": ")" +
                                  kFilesToken + R"(", "servers": ["filesystem"]}]})");
    REQUIRE(table.ok());
    return std::move(table.value());
}

/// A gateway with no backends behind an HTTP transport on a free loopback port.
struct Served {
    std::shared_ptr<scout::Catalog> catalog;
    std::unique_ptr<Gateway> gateway;
    std::unique_ptr<HttpTransport> transport;
    std::thread thread;

    /// An empty catalog, and the two callers of two_callers() unless `with_auth` is false.
    explicit Served(HttpLimits limits = {},
                    bool with_auth = true,
                    std::optional<TlsFiles> tls = std::nullopt) {
        auto created = scout::Catalog::create({}, nullptr);
        REQUIRE(created.ok());
        HttpOptions options;
        options.auth = with_auth ? std::make_shared<const AuthTable>(two_callers()) : nullptr;
        options.limits = limits;
        options.tls = std::move(tls);
        serve(std::make_shared<scout::Catalog>(std::move(created.value())), std::move(options));
    }
    /// The test's own catalog and callers (a JWT section, say).
    Served(std::shared_ptr<scout::Catalog> given, std::shared_ptr<const AuthTable> auth) {
        HttpOptions options;
        options.auth = std::move(auth);
        serve(std::move(given), std::move(options));
    }
    Served(const Served&) = delete;
    Served& operator=(const Served&) = delete;
    ~Served() {
        transport->stop();
        thread.join();
        gateway->shutdown();
    }
    httplib::Client client() const {
        httplib::Client c("127.0.0.1", transport->port());
        c.set_read_timeout(10, 0);
        return c;
    }

private:
    void serve(std::shared_ptr<scout::Catalog> given, HttpOptions options) {
        catalog = std::move(given);
        gateway = std::make_unique<Gateway>(*catalog,
                                            std::vector<BackendSpec>{},
                                            scout::mcp::Connector{},
                                            BackendTimings{},
                                            [](const std::string&, Gateway::Wait) {});
        options.address = {"127.0.0.1", 0};
        transport = std::make_unique<HttpTransport>(*gateway, std::move(options));
        gateway->start(std::chrono::milliseconds(0));  // after the transport added its listener
        REQUIRE(transport->bind().ok());
        thread = std::thread([this] { transport->serve(); });
    }
};

inline httplib::Headers with_token(const char* token, httplib::Headers extra = {}) {
    extra.emplace("Authorization", std::string("Bearer ") + token);
    return extra;
}

inline const std::string kInitialize =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
    R"("capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";

inline std::string open_session(httplib::Client& c, const char* token) {
    auto r = c.Post("/mcp", with_token(token), kInitialize, "application/json");
    REQUIRE(r);
    REQUIRE(r->status == 200);
    const std::string id = r->get_header_value("Mcp-Session-Id");
    REQUIRE(id.size() == 32);
    return id;
}

inline int json_error_code(const std::string& body) {
    auto j = Json::parse(body, nullptr, false);
    return j.is_object() && j.contains("error") ? j["error"].value("code", 0) : 0;
}

}  // namespace scout::gateway::http_test
