// Failure and Error as a run keeps its last error (failure.hpp, error_exception.hpp): what a
// Failure refers to rather than copies, and what it gives back.
#include <catch2/catch.hpp>

#include <exception>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "rebound/retry_executor.hpp"

using rebound::ErrorCategory;
using rebound::Failure;

namespace {

// Changes every description: the executor keeps such a description itself.
class Relabel final : public rebound::FailureClassifier {
  public:
    rebound::ErrorDescription refine(
        const rebound::ErrorDescription& description) const noexcept override {
        rebound::ErrorDescription refined = description;
        refined.error_type = "test.relabelled";
        return refined;
    }
};

}  // namespace

TEST_CASE("an Error owns its text in one block that its copies share", "[failure]") {
    rebound::ErrorDescription description = rebound::ErrorDescription::of(ErrorCategory::Deadlock);
    description.sqlstate = "40P01";
    description.error_type = "db.deadlock";
    const rebound::Error error(description);
    CHECK(std::string_view(error.what()) == "deadlock");  // no message: the category's name
    CHECK(error.description().message.empty());
    CHECK(error.description().sqlstate == "40P01");
    CHECK(error.description().error_type == "db.deadlock");

    const rebound::Error victim(ErrorCategory::Deadlock, "victim");
    CHECK(std::string_view(victim.what()) == "victim");
    rebound::Error copy = victim;
    CHECK(copy.description().message.data() == victim.description().message.data());
    copy = error;
    CHECK(copy.description().sqlstate.data() == error.description().sqlstate.data());
    const rebound::Error moved = std::move(copy);
    CHECK(std::string_view(moved.what()) == "deadlock");
    // A move copies: the Error moved from stays whole.
    CHECK(std::string_view(copy.what()) == "deadlock");  // NOLINT(bugprone-use-after-move)
    CHECK(copy.description().sqlstate == "40P01");
    try {
        throw victim;
    } catch (const std::runtime_error& caught) {
        CHECK(std::string_view(caught.what()) == "victim");
    }
}

TEST_CASE("an empty Failure tests false and reads as no error", "[failure]") {
    const Failure none;
    CHECK_FALSE(none);
    CHECK_FALSE(none.has_value());
    CHECK_FALSE(none.exception());
    CHECK(none.value() == nullptr);
    CHECK_FALSE(none.description().category);
    CHECK_THROWS_AS(none.rethrow(), rebound::Error);
    const Failure copy = none;  // NOLINT(performance-unnecessary-copy-initialization): the copy
    CHECK_FALSE(copy);
}

TEST_CASE("a Failure refers to the description its Error carries", "[failure]") {
    const rebound::RetryExecutor executor;
    rebound::HandlerResolution resolution;
    resolution.policy = rebound::PolicyBuilder("once").max_attempts(1).build();

    SECTION("thrown") {
        const auto result = executor.run(
            resolution, "h", [] { throw rebound::Error(ErrorCategory::Deadlock, "victim"); });
        REQUIRE(result.last_error);
        const Failure& failure = *result.last_error;
        REQUIRE(failure.exception());
        CHECK(failure.value() == nullptr);
        CHECK(failure.description().message == "victim");
        // The view is the thrown Error's own text, not a copy.
        try {
            std::rethrow_exception(failure.exception());
        } catch (const rebound::Error& thrown) {
            CHECK(failure.description().message.data() == thrown.description().message.data());
        }
        // The original exception, not a copy.
        try {
            failure.rethrow();
        } catch (...) {
            CHECK(std::current_exception() == failure.exception());
        }
    }

    SECTION("returned") {
        const rebound::Error error(ErrorCategory::Deadlock, "victim");
        const auto result =
            executor.run(resolution, "h", [&]() -> std::optional<rebound::Error> { return error; });
        REQUIRE(result.last_error);
        REQUIRE(result.last_error->value() != nullptr);
        CHECK_FALSE(result.last_error->exception());
        CHECK(result.last_error->description().message.data() ==
              error.description().message.data());
        CHECK_THROWS_WITH(result.last_error->rethrow(), "victim");
    }
}

TEST_CASE("a Failure keeps a description its error does not carry", "[failure]") {
    rebound::HandlerResolution resolution;
    resolution.policy = rebound::PolicyBuilder("once").max_attempts(1).build();

    SECTION("an exception of another type") {
        const rebound::RetryExecutor executor;
        const auto result =
            executor.run(resolution, "h", [] { throw std::runtime_error("plain"); });
        REQUIRE(result.last_error);
        const auto copy = result;  // the copy shares the kept description
        CHECK(copy.last_error->description().message == "plain");
        CHECK(copy.last_error->description().effective_category() == ErrorCategory::Unknown);
        CHECK_THROWS_AS(copy.last_error->rethrow(), std::runtime_error);
    }

    SECTION("a description a classifier changed") {
        const Relabel relabel;
        const rebound::RetryExecutor executor({.classifier = &relabel});
        const auto thrown = executor.run(
            resolution, "h", [] { throw rebound::Error(ErrorCategory::Deadlock, "victim"); });
        REQUIRE(thrown.last_error);
        CHECK(thrown.last_error->description().error_type == "test.relabelled");
        CHECK(thrown.last_error->description().message == "victim");

        const auto returned = executor.run(resolution, "h", []() -> std::optional<rebound::Error> {
            return rebound::Error(ErrorCategory::Deadlock, "victim");
        });
        REQUIRE(returned.last_error);
        REQUIRE(returned.last_error->value() != nullptr);
        CHECK(returned.last_error->value()->description().error_type.empty());
        const auto copy = returned;
        CHECK(copy.last_error->description().error_type == "test.relabelled");
        CHECK(copy.last_error->description().message == "victim");
        CHECK_THROWS_WITH(copy.last_error->rethrow(), "victim");
    }
}

TEST_CASE("the results a run keeps are compact", "[failure]") {
    // Contracts of failure.hpp and error_exception.hpp: a waiting asynchronous run keeps room
    // for its result in several places (docs/async.md, Cost).
    STATIC_REQUIRE(sizeof(rebound::Error) <= 3 * sizeof(void*));
    STATIC_REQUIRE(sizeof(Failure) <= 4 * sizeof(void*));
    STATIC_REQUIRE(sizeof(rebound::RunResult) <= 16 * sizeof(void*));
}
