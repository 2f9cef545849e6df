// status.hpp: error codes, Status and Result<T>, the only way errors leave the library.
// No exception crosses the public API; internal exceptions are mapped to an Errc at the boundary.
#pragma once

#include <cassert>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "scout/export.hpp"

namespace scout {

/// Error categories. `ok` is only ever carried by a successful Status.
enum class Errc : std::uint8_t {
    ok,
    invalid_argument,     ///< the caller passed something malformed (bad JSON, bad name, bad UTF-8)
    not_found,            ///< an unknown server, tool or file
    io_error,             ///< reading or writing a file failed
    corrupt,              ///< a file's bytes do not form a valid index
    version_unsupported,  ///< a file from a newer, unknown format
    embedder_mismatch,    ///< the embedder's model id differs from the one an index was built with
    dimension_mismatch,   ///< an embedding has the wrong number of components
    unavailable,          ///< a dependency (embedder, backend) failed or timed out
    internal,             ///< a bug or resource exhaustion inside the library
};

/// Stable lowercase name of an error code, for logs and JSON.
[[nodiscard]] SCOUT_API std::string_view errc_name(Errc code) noexcept;

/// An error code plus a human-readable message. Cheap to move; default is ok.
class [[nodiscard]] SCOUT_API Status {
public:
    Status() = default;
    Status(Errc code, std::string message) : code_(code), message_(std::move(message)) {}

    [[nodiscard]] bool ok() const noexcept { return code_ == Errc::ok; }
    [[nodiscard]] Errc code() const noexcept { return code_; }
    [[nodiscard]] const std::string& message() const noexcept { return message_; }
    /// "invalid_argument: <message>", or "ok".
    [[nodiscard]] std::string to_string() const;

private:
    Errc code_ = Errc::ok;
    std::string message_;
};

/// Prints the status to stderr and aborts: what Result::value() does on an error, in every build
/// type (no exception leaves the library, so there is no bad_variant_access either).
[[noreturn]] SCOUT_API void abort_bad_result_access(const Status& status) noexcept;

/// Either a value or a non-ok Status. Reading the value of an error is a precondition violation,
/// as with std::expected; here it is checked in every build type and aborts with the error.
template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : state_(std::move(value)) {}        // NOLINT(google-explicit-constructor)
    Result(Status status) : state_(std::move(status)) {  // NOLINT(google-explicit-constructor)
        assert(!std::get_if<Status>(&state_)->ok());
    }
    Result(Errc code, std::string message) : state_(Status(code, std::move(message))) {}

    [[nodiscard]] bool ok() const noexcept { return std::holds_alternative<T>(state_); }
    explicit operator bool() const noexcept { return ok(); }

    [[nodiscard]] T& value() & { return *checked(); }
    [[nodiscard]] const T& value() const& { return *checked(); }
    [[nodiscard]] T&& value() && { return std::move(*checked()); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    /// The error; an ok Status when a value is held.
    [[nodiscard]] Status status() const { return ok() ? Status{} : *std::get_if<Status>(&state_); }

private:
    [[nodiscard]] const T* checked() const noexcept {
        const T* value = std::get_if<T>(&state_);
        if (value == nullptr) [[unlikely]] {
            abort_bad_result_access(*std::get_if<Status>(&state_));
        }
        return value;
    }
    [[nodiscard]] T* checked() noexcept {
        T* value = std::get_if<T>(&state_);
        if (value == nullptr) [[unlikely]] {
            abort_bad_result_access(*std::get_if<Status>(&state_));
        }
        return value;
    }

    std::variant<T, Status> state_;
};

}  // namespace scout
