// The work a run of the asynchronous executor runs, in either of its forms (retry_executor.hpp):
// how an attempt starts it and what value it gives. Internal, not part of the API
// (docs/public-api.md).
#pragma once

// A standard header before Asio's (see retry_executor.hpp).
#include <cstdlib>

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <asio/use_awaitable.hpp>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#include "rebound/retry_executor.hpp"

namespace rebound::asio::detail {

using AttemptToken = ::asio::use_awaitable_t<::asio::any_io_executor>;

// Starts one attempt of `work` in whichever form it takes (see the top of retry_executor.hpp);
// `info` is read only by the forms that take it (kUsesAttemptInfo). The initiating-function
// forms are tried first: telling them apart must not instantiate a generic lambda's body with
// the wrong arguments.
template <typename Work>
auto start_work(Work& work, const AttemptInfo* info) {
    if constexpr (std::is_invocable_v<Work&, const AttemptInfo&, AttemptToken>) {
        return work(*info, AttemptToken{});
    } else if constexpr (std::is_invocable_v<Work&, AttemptToken>) {
        return work(AttemptToken{});
    } else if constexpr (std::is_invocable_v<Work&, const AttemptInfo&>) {
        return work(*info);
    } else {
        static_assert(std::is_invocable_v<Work&>,
                      "work must be invocable with const AttemptInfo& or with nothing (returning "
                      "asio::awaitable<T>), or with a completion token (an initiating function)");
        return work();
    }
}

// Whether start_work() passes `work` the AttemptInfo: a run of work that takes none builds none
// for a deferred first attempt. Asks in start_work()'s order, and no further than it does (a
// generic initiating function must not be instantiated with an AttemptInfo for its token).
template <typename Work>
constexpr bool takes_attempt_info() {
    if constexpr (std::is_invocable_v<Work&, const AttemptInfo&, AttemptToken>) {
        return true;
    } else if constexpr (std::is_invocable_v<Work&, AttemptToken>) {
        return false;
    } else {
        return std::is_invocable_v<Work&, const AttemptInfo&>;
    }
}
template <typename Work>
constexpr bool kUsesAttemptInfo = takes_attempt_info<Work>();

template <typename Awaitable>
struct AwaitableValue {
    static_assert(sizeof(Awaitable) == 0,
                  "work must return asio::awaitable<T> (on asio::any_io_executor), or start an "
                  "asynchronous operation with the completion token it is given");
};
template <typename T>
struct AwaitableValue<::asio::awaitable<T, ::asio::any_io_executor>> {
    using type = T;
};

template <typename Work>
using WorkValue = typename AwaitableValue<decltype(start_work(
    std::declval<std::decay_t<Work>&>(), std::declval<const AttemptInfo*>()))>::type;

// The value of the attempt in progress (std::monostate for void).
template <typename T>
using AttemptValue = std::optional<std::conditional_t<std::is_void_v<T>, std::monostate, T>>;

}  // namespace rebound::asio::detail
