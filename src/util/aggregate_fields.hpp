// aggregate_fields.hpp: the number of direct fields of an aggregate, computed at compile time,
// so code that must handle every field of a struct (options serialization) can assert it does
// without depending on the struct's size, which varies with the ABI.
#pragma once

#include <cstddef>

namespace scout::detail {

/// Converts to any type, so it can initialize any one field of an aggregate.
struct AnyField {
    template <typename T>
    operator T() const;  // NOLINT(google-explicit-constructor): declared only, for unevaluated use
};

/// Direct fields of aggregate T: the longest list of AnyField that initializes it. Every
/// initializer converts straight to the field's type, so no brace elision into nested
/// aggregates happens and each initializer is one field.
template <typename T, typename... Fields>
consteval std::size_t aggregate_fields() {
    if constexpr (requires { T{Fields{}..., AnyField{}}; }) {
        return aggregate_fields<T, Fields..., AnyField>();
    } else {
        return sizeof...(Fields);
    }
}

}  // namespace scout::detail
