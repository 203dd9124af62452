#include "rebound/handler_latencies.hpp"

#include <new>

#include "rebound/internal/name_index.hpp"

namespace rebound {

// Which recorder each handler has: immutable once published.
struct HandlerLatencies::Index {
    NameIndex names;
    std::vector<LatencyRecorder*> recorders;  // by the value names give
};

HandlerLatencies::HandlerLatencies(const Clock& clock) : clock_(clock), index_(nullptr) {
    auto empty = std::make_unique<const Index>();
    index_.store(empty.get(), std::memory_order_release);
    indexes_.push_back(std::move(empty));
}

HandlerLatencies::~HandlerLatencies() = default;

LatencyRecorder* HandlerLatencies::find(std::string_view handler) const noexcept {
    const Index& index = *index_.load(std::memory_order_acquire);
    const std::uint32_t at = index.names.find(handler);
    return at == NameIndex::npos ? nullptr : index.recorders[at];
}

const LatencyRecorder* HandlerLatencies::recorder(std::string_view handler) const noexcept {
    return find(handler);
}

LatencyRecorder* HandlerLatencies::make(std::string_view handler, Duration window) const noexcept {
    try {
        const std::lock_guard lock(mutex_);
        const Index& current = *index_.load(std::memory_order_acquire);
        const std::uint32_t at = current.names.find(handler);
        if (at != NameIndex::npos && current.recorders[at]->window() == window) {
            return current.recorders[at];  // made by another thread meanwhile
        }
        auto made = std::make_unique<LatencyRecorder>(window, clock_.now());
        auto next = std::make_unique<Index>(current);
        if (at != NameIndex::npos) {
            next->recorders[at] = made.get();  // the window changed: start afresh
        } else {
            next->names.insert(handler, static_cast<std::uint32_t>(next->recorders.size()));
            next->recorders.push_back(made.get());
        }
        LatencyRecorder* const result = made.get();
        recorders_.push_back(std::move(made));
        indexes_.push_back(std::move(next));
        index_.store(indexes_.back().get(), std::memory_order_release);
        return result;
    } catch (const std::exception&) {
        return nullptr;  // out of memory, or a window below LatencyRecorder::kMinWindow
    }
}

std::optional<Duration> HandlerLatencies::hedge_delay(std::string_view handler,
                                                      const HedgeSettings& hedge) const noexcept {
    if (!hedge.learned) {
        return std::nullopt;
    }
    const Duration window = hedge.window_or_default();
    LatencyRecorder* recorder = find(handler);
    if (recorder == nullptr || recorder->window() != window) {
        recorder = make(handler, window);
        if (recorder == nullptr) {
            return std::nullopt;
        }
    }
    return learned_hedge_delay(*recorder, *hedge.learned, hedge.warmup_or_default(), clock_.now());
}

void HandlerLatencies::record(std::string_view handler, Duration latency) noexcept {
    if (LatencyRecorder* const recorder = find(handler)) {
        recorder->record(latency, clock_.now());
    }
}

}  // namespace rebound
