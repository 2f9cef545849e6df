// c_support.hpp: what every C entry point shares (scout.h and the registry's scout_registry.h):
// the calling thread's last error, exceptions turned into statuses, strings handed to the caller,
// and a search rendered as scout.h's result JSON.
#pragma once

#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "scout/scout.h"
#include "scout/searcher.hpp"
#include "scout/status.hpp"

namespace scout::detail {

/// Records `status`'s message for the calling thread (scout_last_error) and returns its code.
scout_status fail(const Status& status) noexcept;
/// The calling thread's last recorded message.
[[nodiscard]] const char* last_error_text() noexcept;

/// Runs `body` (which returns a Status) with every exception turned into SCOUT_INTERNAL.
template <typename Body>
scout_status guarded(Body&& body) noexcept {
    try {
        Status status = body();
        return status.ok() ? SCOUT_OK : fail(status);
    } catch (const std::bad_alloc&) {
        return fail({Errc::internal, "out of memory"});
    } catch (const std::exception& e) {
        return fail({Errc::internal, e.what()});
    } catch (...) {
        return fail({Errc::internal, "unknown exception"});
    }
}

[[nodiscard]] Status null_argument(const char* name);
/// A malloc'ed copy the caller releases with scout_string_free.
[[nodiscard]] Status give_string(const std::string& text, char** out);
[[nodiscard]] std::string_view optional_text(const char* text);
/// Searches `searcher` with scout.h's search options and writes scout.h's result JSON.
[[nodiscard]] Status search_into(const Searcher& searcher,
                                 Mode default_mode,
                                 const char* query,
                                 const char* options_json,
                                 char** result_json);

}  // namespace scout::detail
