// thread_scratch.hpp: per-thread scratch buffers that hot loops can hold by plain reference.
#pragma once

namespace scout::detail {

/// The calling thread's own T, returned through a call the compiler may not inline. In
/// position-independent code GCC re-derives a thread_local's address (a __tls_get_addr call)
/// at each use that follows an opaque call, even through a local reference, which costs a call
/// per row inside a scan; a reference returned by an out-of-line function is an ordinary
/// pointer. Each user passes a type of its own, so no two users share an instance.
template <class T>
[[gnu::noinline]] T& thread_scratch() {
    thread_local T instance;
    return instance;
}

}  // namespace scout::detail
