#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "rebound/policy_set.hpp"
#include "rebound/policy_store.hpp"

namespace {

using Store = rebound::PolicyStore<rebound::PolicySet, std::vector<std::string>>;

std::shared_ptr<const rebound::PolicySet> set_with_default(std::string policy) {
    return std::make_shared<const rebound::PolicySet>(
        "svc",
        std::vector<std::shared_ptr<const rebound::Policy>>{rebound::PolicyBuilder(policy).build()},
        std::vector<rebound::HandlerBinding>{}, policy);
}

}  // namespace

TEST_CASE("a store starts empty and installs what a reload compiles", "[store]") {
    Store store;
    CHECK(store.current() == nullptr);
    CHECK(store.generation() == 0);
    std::vector<std::string> reported;
    const bool swapped = store.reload(
        [] {
            return Store::Compiled{set_with_default("first"), {"warning: lint"}};
        },
        [&](const std::vector<std::string>& d) { reported = d; });
    CHECK(swapped);
    CHECK(store.generation() == 1);
    CHECK(*store.current()->default_policy() == "first");
    CHECK(reported == std::vector<std::string>{"warning: lint"});
}

TEST_CASE("a failed reload keeps the last good snapshot and reports why", "[store]") {
    Store store(set_with_default("good"));
    const auto before = store.current();
    std::vector<std::string> reported;
    const bool swapped = store.reload(
        [] {
            return Store::Compiled{nullptr, {"a.yaml:3:5: error"}};
        },
        [&](const std::vector<std::string>& d) { reported = d; });
    CHECK_FALSE(swapped);
    CHECK(store.current() == before);
    CHECK(store.generation() == 1);
    CHECK(reported == std::vector<std::string>{"a.yaml:3:5: error"});

    // A compile function that throws leaves the snapshot alone too.
    CHECK_THROWS(store.reload([]() -> Store::Compiled { throw std::runtime_error("io"); }));
    CHECK(store.current() == before);
}

TEST_CASE("a reader keeps the snapshot it took across reloads", "[store]") {
    Store store(set_with_default("one"));
    const auto held = store.current();
    store.reload([] { return Store::Compiled{set_with_default("two"), {}}; });
    CHECK(*held->default_policy() == "one");
    CHECK(*store.current()->default_policy() == "two");
    CHECK(store.generation() == 2);
}
