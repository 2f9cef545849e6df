// tls_identity.hpp: a self-signed certificate for 127.0.0.1, made at test time by the openssl
// command (Debian package `openssl`), for LoopbackServer's TLS mode. The certificate is its own
// CA: a client that is given it as its CA bundle trusts the server, any other client does not.
#pragma once

#include <cstdlib>
#include <string>

#include "support/loopback_server.hpp"
#include "support/temp_dir.hpp"

namespace scout::test {

/// Writes cert.pem and key.pem into `dir`; empty file names when openssl failed.
inline TlsIdentity make_self_signed(const TempDir& dir) {
    TlsIdentity id{dir.file("cert.pem"), dir.file("key.pem")};
    const std::string command =
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
        "-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout '" +
        id.key_file + "' -out '" + id.cert_file + "' >/dev/null 2>&1";
    if (std::system(command.c_str()) != 0) {
        return {};
    }
    return id;
}

}  // namespace scout::test
