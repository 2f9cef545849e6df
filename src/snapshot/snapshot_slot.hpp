// snapshot_slot.hpp: the single place where a new snapshot is published and where readers pick
// up the current one. The mutex guards only a pointer copy, so readers never wait on a build.
#pragma once

#include <memory>
#include <mutex>

#include "snapshot/snapshot.hpp"

namespace scout::detail {

class SnapshotSlot {
public:
    [[nodiscard]] std::shared_ptr<const Snapshot> load() const {
        std::lock_guard lock(mu_);
        return current_;
    }
    void publish(std::shared_ptr<const Snapshot> next) {
        std::shared_ptr<const Snapshot> retired;
        {
            std::lock_guard lock(mu_);
            retired = std::exchange(current_, std::move(next));
        }
        // `retired` is released here, outside the lock, if no Searcher still holds it.
    }

private:
    mutable std::mutex mu_;
    std::shared_ptr<const Snapshot> current_;
};

}  // namespace scout::detail
