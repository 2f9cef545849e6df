// log.cpp: see log.hpp.
#include "log.hpp"

#include <unistd.h>

#include <string>

namespace scout::gateway {

void log_line(std::string_view text) {
    std::string line = "scout-gateway: ";
    line += text;
    line += '\n';
    std::size_t off = 0;
    while (off < line.size()) {
        const ssize_t n = ::write(STDERR_FILENO, line.data() + off, line.size() - off);
        if (n <= 0) {
            return;
        }
        off += static_cast<std::size_t>(n);
    }
}

}  // namespace scout::gateway
