// HeldClaims: the lease owners of the claims a worker pool's threads are working through, for
// its lease renewer (worker_pool.hpp, docs/queue.md "Lease renewal").
#pragma once

#include <algorithm>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace rebound::queue::detail {

// The lease owners of the claims in progress, shared by the worker threads and the renewer.
class HeldClaims {
  public:
    void hold(const std::string& owner) {
        const std::lock_guard lock(mutex_);
        owners_.push_back(owner);
    }
    void drop(const std::string& owner) {
        const std::lock_guard lock(mutex_);
        const auto found = std::find(owners_.begin(), owners_.end(), owner);
        if (found != owners_.end()) {
            owners_.erase(found);
        }
    }
    std::vector<std::string> owners() const {
        const std::lock_guard lock(mutex_);
        return owners_;
    }

  private:
    mutable std::mutex mutex_;
    std::vector<std::string> owners_;
};

// Lists a claim's owner in HeldClaims for as long as the worker works through it.
class HeldClaim {
  public:
    HeldClaim(HeldClaims* claims, std::string owner) : claims_(claims), owner_(std::move(owner)) {
        if (claims_ != nullptr) {
            claims_->hold(owner_);
        }
    }
    HeldClaim(const HeldClaim&) = delete;
    HeldClaim& operator=(const HeldClaim&) = delete;
    ~HeldClaim() {
        if (claims_ != nullptr) {
            claims_->drop(owner_);
        }
    }

  private:
    HeldClaims* claims_;
    std::string owner_;
};

}  // namespace rebound::queue::detail
