// The error-type cases: a policy of 50 error-type rules, through the engine and written by hand,
// and errors that stress the error-type path (docs/performance.md, "Decision").
//
// The names are chosen so that:
//   - twenty have the same length, the same first eight and the same last eight bytes
//     (`payments.<five letters>.timeout`): one hash key, told apart only by the middle;
//   - seven have exactly the lengths of the dotted prefixes of the miss
//     `svc.orders.v2.eu-west.shard7.replica.lag`, so that no prefix is skipped by its length;
//   - no name is a dotted prefix of another, so the first hit of the hand-written search is the
//     only one.
#pragma once

#include "common.hpp"
#include "hand_written_baseline.hpp"

namespace decision_bench {
namespace {

constexpr std::array<std::string_view, 50> kErrorTypes50{
    "io.timeout",
    "io.connection_reset",
    "net.dns.temporary_failure",
    "grpc.unavailable",
    "grpc.resource_exhausted",
    "redis.cluster.moved",
    "redis.loading",
    "mongo.not_primary",
    "mongo.write_conflict",
    "http.pool.exhausted",
    "dns.servfail",
    "payments.alpha.timeout",
    "payments.bravo.timeout",
    "payments.delta.timeout",
    "payments.gamma.timeout",
    "payments.hotel.timeout",
    "payments.india.timeout",
    "payments.kilos.timeout",
    "payments.lemon.timeout",
    "payments.mango.timeout",
    "payments.nylon.timeout",
    "payments.opera.timeout",
    "payments.pizza.timeout",
    "payments.quark.timeout",
    "payments.radar.timeout",
    "payments.sigma.timeout",
    "payments.tango.timeout",
    "payments.ultra.timeout",
    "payments.vegas.timeout",
    "payments.whisk.timeout",
    "payments.xenon.timeout",
    "k8s",
    "queue.full",
    "tls.handshake",
    "kafka.broker.notready",
    "search.elastic.shards_failed",
    "auth.oauth2.token_endpoint.throttled",
    "billing.invoices.generator.backpressured",
    "storage.s3.slow_down",
    "smtp.greylisted",
    "ldap.busy",
    "ftp.transient",
    "nats.slow_consumer",
    "rabbitmq.channel.closed",
    "sqs.throttling",
    "dynamodb.provisioned_throughput_exceeded",
    "s3.slow_down",
    "etcd.leader_changed",
    "consul.rpc.rate_limited",
    "zookeeper.connection_loss",
};

// 50 error-type rules and one never_retry_on category; the backoff, jitter, deadline and
// min_attempt_budget of the 64-rule policy, so the hand-written side shares its delay code.
std::shared_ptr<const rebound::Policy> make_types50_policy() {
    rebound::PolicyBuilder b("types50");
    b.max_attempts(kMaxAttempts)
        .backoff(rebound::Backoff::exponential(50ms, 2.0, 2s))
        .jitter(rebound::Jitter::full())
        .deadline(30s)
        .min_attempt_budget(100ms);
    for (const std::string_view type : kErrorTypes50) {
        b.retry_on(rebound::Matcher::error_type(std::string(type)));
    }
    b.never_retry_on(rebound::Matcher::of_category(ErrorCategory::ConstraintViolation));
    return b.build();
}

ErrorDescription error_of_type(std::string_view type) {
    ErrorDescription e;
    e.error_type = type;
    return e;
}

// A deep name matched through a prefix: `rules64`'s io.timeout, six levels down.
ErrorDescription deep_io_timeout() {
    return error_of_type("io.timeout.read.socket.tls.handshake");
}

namespace hand {

// "error:<type>" for each of kErrorTypes50, the texts decide() reports as `matched`.
const std::array<std::string, 50>& types50_texts() {
    static const std::array<std::string, 50> texts = [] {
        std::array<std::string, 50> out;
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i] = "error:" + std::string(kErrorTypes50[i]);
        }
        return out;
    }();
    return texts;
}

// The type, then each dotted prefix, compared with every name in list order.
std::uint32_t types50_rule(const ErrorDescription& e) noexcept {
    for (std::string_view name = e.error_type; !name.empty();) {
        for (std::size_t i = 0; i < kErrorTypes50.size(); ++i) {
            if (name == kErrorTypes50[i]) {
                return static_cast<std::uint32_t>(i);
            }
        }
        const auto dot = name.rfind('.');
        name = dot == std::string_view::npos ? std::string_view{} : name.substr(0, dot);
    }
    return kNoRule;
}

[[gnu::noipa]] Decision decide_types50(const ErrorDescription& e, const AttemptContext& context,
                                       SeededRandomSource& random) noexcept {
    Decision d;  // a stop, non_retryable
    d.category = e.effective_category();
    if (d.category == ErrorCategory::ConstraintViolation) {
        d.matched = "category:constraint_violation";
        return d;
    }
    const std::uint32_t rule = types50_rule(e);
    if (rule == kNoRule) {
        return d;
    }
    d.matched = types50_texts()[rule];
    return retry_after_rule(d, e, context, random);
}

}  // namespace hand
}  // namespace
}  // namespace decision_bench
