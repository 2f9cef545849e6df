// py_values.hpp: what scout's Python core shares between its files: library errors on their way
// to Python (StatusError, raised as the scout.Error subclass registered for the status code),
// and the conversions of text and JSON values to Python objects.
#pragma once

#include <string>
#include <utility>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

#include "scout/status.hpp"

namespace scout_python {

namespace py = pybind11;

/// A non-ok Status on its way to Python (translated to the registered scout.Error subclass).
struct StatusError {
    scout::Status status;
};

/// Python types the package registers at import: the scout.Error subclass of each status code,
/// and SearchResults (a list with the result's metadata as attributes).
struct Registered {
    py::dict errors;  // int code -> class
    py::object results;
};

Registered& registered();

void raise_if_error(const scout::Status& status);

template <typename T>
T take(scout::Result<T>&& result) {
    raise_if_error(result.status());
    return std::move(result).value();
}

/// UTF-8 to str; bytes that are not UTF-8 become U+FFFD rather than an exception.
py::str text(const std::string& value);

/// A str argument as UTF-8; anything else (or a str with lone surrogates) is invalid_argument.
std::string utf8_argument(const py::handle& value, const char* what);

/// A parsed JSON value as dicts, lists, str, int, float, bool and None.
py::object to_python(const nlohmann::json& value);

/// A fresh copy of the dicts and lists of a parsed JSON value; the leaves (str, int, float,
/// bool, None) are immutable and shared. Raw C API: this runs for every hit's schema. A new
/// reference, or nullptr with a Python error set.
PyObject* copy_containers(PyObject* value);

}  // namespace scout_python
