// resource_subscriptions.cpp: see resource_subscriptions.hpp.
#include "resource_subscriptions.hpp"

namespace scout::gateway {

ResourceSubscriptions::Added ResourceSubscriptions::add(const std::string& client,
                                                        const Resource& r) {
    std::lock_guard lock(mutex_);
    auto& mine = by_client_[client];
    if (mine.count(r) != 0) {
        return Added::held;
    }
    if (mine.size() >= per_client_) {
        if (mine.empty()) {
            by_client_.erase(client);
        }
        return Added::too_many;
    }
    mine.insert(r);
    auto& clients = holders_[r];
    clients.insert(client);
    return clients.size() == 1 ? Added::first : Added::shared;
}

ResourceSubscriptions::Removed ResourceSubscriptions::remove(const std::string& client,
                                                             const Resource& r) {
    std::lock_guard lock(mutex_);
    auto mine = by_client_.find(client);
    if (mine == by_client_.end() || mine->second.erase(r) == 0) {
        return Removed::not_held;
    }
    if (mine->second.empty()) {
        by_client_.erase(mine);
    }
    auto clients = holders_.find(r);
    clients->second.erase(client);
    if (!clients->second.empty()) {
        return Removed::shared;
    }
    holders_.erase(clients);
    return Removed::last;
}

std::vector<ResourceSubscriptions::Resource> ResourceSubscriptions::end_client(
    const std::string& client) {
    std::lock_guard lock(mutex_);
    std::vector<Resource> orphaned;
    auto mine = by_client_.find(client);
    if (mine == by_client_.end()) {
        return orphaned;
    }
    for (const Resource& r : mine->second) {
        auto clients = holders_.find(r);
        clients->second.erase(client);
        if (clients->second.empty()) {
            holders_.erase(clients);
            orphaned.push_back(r);
        }
    }
    by_client_.erase(mine);
    return orphaned;
}

std::vector<std::string> ResourceSubscriptions::holders(const Resource& r) const {
    std::lock_guard lock(mutex_);
    auto clients = holders_.find(r);
    if (clients == holders_.end()) {
        return {};
    }
    return {clients->second.begin(), clients->second.end()};
}

std::vector<std::string> ResourceSubscriptions::held_uris(const std::string& server) const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> uris;
    // Resources sort by server first: the server's entries are one run.
    for (auto it = holders_.lower_bound(Resource{server, ""});
         it != holders_.end() && it->first.first == server;
         ++it) {
        uris.push_back(it->first.second);
    }
    return uris;
}

std::size_t ResourceSubscriptions::count(const std::string& client) const {
    std::lock_guard lock(mutex_);
    auto mine = by_client_.find(client);
    return mine == by_client_.end() ? 0 : mine->second.size();
}

}  // namespace scout::gateway
