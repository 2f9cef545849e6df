// url_check.cpp: a registry URL must not carry a password, which would show in process listings,
// shell histories and logs; libpq reads it from PGPASSWORD, PGPASSFILE or a password file.
#include <memory>
#include <string>

#include <libpq-fe.h>

#include "scout/registry/registry.hpp"

namespace scout::registry {

Status check_url(const std::string& url) {
    if (url.empty()) {
        return {Errc::invalid_argument, "registry URL is empty"};
    }
    char* error = nullptr;
    PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
    if (options == nullptr) {
        std::string why = error != nullptr ? error : "out of memory";
        PQfreemem(error);
        while (!why.empty() && why.back() == '\n') {
            why.pop_back();
        }
        return {Errc::invalid_argument, "registry URL is malformed: " + why};
    }
    const std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> owned(options,
                                                                             &PQconninfoFree);
    for (const PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
        if (std::string(o->keyword) == "password" && o->val != nullptr && o->val[0] != '\0') {
            return {Errc::invalid_argument,
                    "registry URL carries a password; give it through PGPASSWORD, PGPASSFILE or "
                    "a password file instead"};
        }
    }
    return {};
}

}  // namespace scout::registry
