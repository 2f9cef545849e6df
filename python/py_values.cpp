// py_values.cpp: scout's Python core's errors and value conversions (py_values.hpp).
#include "py_values.hpp"

#include <cstdint>

namespace scout_python {

using nlohmann::json;
using scout::Errc;
using scout::Status;

Registered& registered() {
    static auto* types = new Registered();  // never destroyed: outlives the interpreter's teardown
    return *types;
}

void raise_if_error(const Status& status) {
    if (!status.ok()) {
        throw StatusError{status};
    }
}

py::str text(const std::string& value) {
    PyObject* object =
        PyUnicode_DecodeUTF8(value.data(), static_cast<Py_ssize_t>(value.size()), "replace");
    if (object == nullptr) {
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::str>(object);
}

std::string utf8_argument(const py::handle& value, const char* what) {
    if (!PyUnicode_Check(value.ptr())) {
        throw StatusError{{Errc::invalid_argument, std::string(what) + " must be a str"}};
    }
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
    if (data == nullptr) {
        PyErr_Clear();
        throw StatusError{
            {Errc::invalid_argument, std::string(what) + " is not encodable as UTF-8"}};
    }
    return {data, static_cast<std::size_t>(size)};
}

py::object to_python(const json& value) {
    switch (value.type()) {
        case json::value_t::object: {
            py::dict out;
            for (const auto& [key, item] : value.items()) {
                out[text(key)] = to_python(item);
            }
            return out;
        }
        case json::value_t::array: {
            py::list out(value.size());
            std::size_t i = 0;
            for (const json& item : value) {
                out[i++] = to_python(item);
            }
            return out;
        }
        case json::value_t::string:
            return text(value.get_ref<const std::string&>());
        case json::value_t::boolean:
            return py::bool_(value.get<bool>());
        case json::value_t::number_integer:
            return py::int_(value.get<std::int64_t>());
        case json::value_t::number_unsigned:
            return py::int_(value.get<std::uint64_t>());
        case json::value_t::number_float:
            return py::float_(value.get<double>());
        default:
            return py::none();
    }
}

PyObject* copy_containers(PyObject* value) {
    if (PyDict_CheckExact(value)) {
        PyObject* out = PyDict_New();
        PyObject* key = nullptr;
        PyObject* item = nullptr;
        Py_ssize_t pos = 0;
        while (out != nullptr && PyDict_Next(value, &pos, &key, &item)) {
            PyObject* copy = copy_containers(item);
            if (copy == nullptr || PyDict_SetItem(out, key, copy) != 0) {
                Py_XDECREF(copy);
                Py_DECREF(out);
                return nullptr;
            }
            Py_DECREF(copy);
        }
        return out;
    }
    if (PyList_CheckExact(value)) {
        const Py_ssize_t size = PyList_GET_SIZE(value);
        PyObject* out = PyList_New(size);
        for (Py_ssize_t i = 0; out != nullptr && i < size; ++i) {
            PyObject* copy = copy_containers(PyList_GET_ITEM(value, i));
            if (copy == nullptr) {
                Py_DECREF(out);
                return nullptr;
            }
            PyList_SET_ITEM(out, i, copy);  // steals the reference
        }
        return out;
    }
    Py_INCREF(value);
    return value;
}

}  // namespace scout_python
