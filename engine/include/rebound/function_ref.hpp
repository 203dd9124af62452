// FunctionRef: a non-owning reference to a callable, for hooks on hot paths.
//
// Unlike std::function it never allocates and never copies the callable: it stores a pointer to
// it and a trampoline. The referenced callable must outlive every call through the reference
// (pass a lambda to a function taking FunctionRef, never store one built from a temporary).
#pragma once

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace rebound {

template <typename Signature>
class FunctionRef;

template <typename Result, typename... Args>
class FunctionRef<Result(Args...)> {
  public:
    FunctionRef() noexcept = default;

    // The requires clause excludes FunctionRef itself, which the check does not see.
    // NOLINTBEGIN(bugprone-forwarding-reference-overload)
    template <typename Callable>
    requires(!std::is_same_v<std::remove_cvref_t<Callable>, FunctionRef> &&
             std::is_invocable_r_v<Result, Callable&, Args...>) FunctionRef(Callable&& callable)
    noexcept  // NOLINT(google-explicit-constructor)
        : object_(const_cast<void*>(static_cast<const void*>(std::addressof(callable)))),
          call_([](void* object, Args... args) -> Result {
              return std::invoke(*static_cast<std::remove_reference_t<Callable>*>(object),
                                 std::forward<Args>(args)...);
          }) {}
    // NOLINTEND(bugprone-forwarding-reference-overload)

    explicit operator bool() const noexcept { return call_ != nullptr; }

    // Precondition: the reference is not empty.
    Result operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

  private:
    void* object_ = nullptr;
    Result (*call_)(void*, Args...) = nullptr;
};

}  // namespace rebound
