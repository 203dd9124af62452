// `rebound classify` and `rebound decide` answer as the adapters would (docs/cli.md): every vector
// of the spec's decide-cases.jsonl, and database errors of every vendor in every phase, go through
// the `rebound` binary and through the adapters' own classification (rebound::odbc's
// classify_failure, rebound::protocols' HTTP and gRPC functions) followed by the engine's
// decide() with the same seed, and the answers must be identical.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rebound/decision.hpp"
#include "rebound/dsl/load.hpp"
#include "rebound/dsl/syntax.hpp"
#include "rebound/dsl/vendor_map_loader.hpp"
#include "rebound/grpc/classification.hpp"
#include "rebound/http/classification.hpp"
#include "rebound/odbc/database_error.hpp"
#include "rebound/random_source.hpp"
#include "run_command.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using rebound::testing::CommandResult;

const fs::path kConformance = fs::path(REBOUND_SPEC_DIR) / "conformance";

json run_cli_json(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), REBOUND_CLI_PATH);
    arguments.insert(arguments.end(), {"--format", "json"});
    const CommandResult result = rebound::testing::run_command(arguments);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    return json::parse(result.out);
}

const rebound::SqlErrorClassifier& classifier() {
    static const auto loaded = rebound::dsl::load_vendor_maps_or_throw(REBOUND_VENDOR_MAP_DIR);
    return *loaded;
}

rebound::Duration duration(const std::string& text) {
    std::string error;
    const auto value = rebound::dsl::parse_duration(text, error);
    INFO(text << ": " << error);
    REQUIRE(value);
    return *value;
}

// The options of one `rebound decide` case that say what failed and when.
struct Failure {
    std::string handler;
    int attempt = 1;
    std::string category;
    std::string vendor;
    std::string sqlstate;
    std::optional<std::int64_t> native;
    std::string phase = "execute";
    int http = 0;
    std::string method = "GET";
    std::string grpc;
    std::string error_type;
    std::string server_delay;
    bool server_refuses = false;
    std::string elapsed = "0ms";
    bool idempotent = false;
};

Failure parse_failure(const std::vector<std::string>& args) {
    Failure f;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& name = args[i];
        if (name == "--server-refuses") {
            f.server_refuses = true;
            continue;
        }
        if (name == "--idempotent") {
            f.idempotent = true;
            continue;
        }
        REQUIRE(i + 1 < args.size());
        const std::string& value = args[++i];
        std::map<std::string, std::string*> texts{
            {"--handler", &f.handler}, {"--category", &f.category},
            {"--vendor", &f.vendor},   {"--sqlstate", &f.sqlstate},
            {"--phase", &f.phase},     {"--method", &f.method},
            {"--grpc", &f.grpc},       {"--error", &f.error_type},
            {"--elapsed", &f.elapsed}, {"--server-delay", &f.server_delay}};
        if (const auto found = texts.find(name); found != texts.end()) {
            *found->second = value;
        } else if (name == "--attempt") {
            f.attempt = std::stoi(value);
        } else if (name == "--native") {
            f.native = std::stoll(value);
        } else if (name == "--http") {
            f.http = std::stoi(value);
        } else {
            FAIL("the test does not know the option " << name);
        }
    }
    return f;
}

// The decision as the adapters reach it, and the policy it was taken under (whose text the
// decision's views point into).
struct AdapterDecision {
    rebound::Decision decision;
    std::shared_ptr<const rebound::Policy> policy;
};

AdapterDecision adapter_decision(const fs::path& file, const Failure& f, std::uint64_t seed) {
    const rebound::dsl::LoadResult loaded = rebound::dsl::load_file(file);
    REQUIRE(loaded.policy_set);
    const rebound::HandlerResolution resolution = loaded.policy_set->resolve(f.handler);
    std::shared_ptr<const rebound::Policy> policy = resolution.policy_or_builtin();
    rebound::AttemptContext context;
    context.attempt = f.attempt;
    context.elapsed = duration(f.elapsed);
    context.idempotent = resolution.idempotent_source == rebound::IdempotenceSource::Binding
                             ? resolution.idempotent
                             : f.idempotent;

    rebound::ErrorDescription error;
    std::optional<rebound::odbc::DatabaseFailure> database;  // what `error` views
    if (!f.category.empty()) {
        error.category = rebound::parse_category(f.category);
        REQUIRE(error.category);
    } else if (!f.sqlstate.empty() || f.native) {
        const auto vendor = rebound::parse_vendor(f.vendor.empty() ? "generic" : f.vendor);
        const auto phase = rebound::parse_database_phase(f.phase);
        REQUIRE(vendor);
        REQUIRE(phase);
        database = rebound::odbc::classify_failure(classifier(), *vendor, *phase,
                                                   {{f.sqlstate, f.native.value_or(0), ""}});
        error = database->description();
        if (!f.native) {
            error.native_code.reset();  // the record had none
        }
        if (f.vendor.empty()) {
            error.vendor.reset();  // no connection vendor: the generic map only
        }
    }
    if (f.http != 0) {
        const rebound::http::Request request{f.method, {}, context.idempotent};
        const rebound::http::Classification http = rebound::http::classify_response(
            request, rebound::http::Response{f.http, {}, std::chrono::system_clock::now()});
        const rebound::ErrorDescription found = http.error();
        error.category = error.category ? error.category : found.category;
        error.http_status = found.http_status;
        error.server_delay = found.server_delay;
    }
    if (!f.grpc.empty()) {
        const auto status = rebound::parse_grpc_status(f.grpc);
        REQUIRE(status);
        const rebound::ErrorDescription found = rebound::grpc::classify(*status).error();
        error.category = error.category ? error.category : found.category;
        error.grpc_status = found.grpc_status;
        error.server_delay = found.server_delay;
        error.server_refused = found.server_refused;
    }
    error.error_type = f.error_type;
    if (!f.server_delay.empty()) {
        error.server_delay = duration(f.server_delay);
    }
    error.server_refused = error.server_refused || f.server_refuses;

    rebound::SeededRandomSource random(seed);
    const rebound::Decision decision = rebound::decide(*policy, error, context, random);
    return {decision, std::move(policy)};
}

// Every field `rebound decide --format json` prints (docs/cli.md) is the library's.
void require_same(const json& cli, const rebound::Decision& d, const std::string& policy) {
    const auto text_or_null = [](std::string_view text) {
        return text.empty() ? json(nullptr) : json(std::string(text));
    };
    CHECK(cli.size() == 8);
    CHECK(cli["retry"] == d.retry);
    CHECK(cli["reason"] == std::string(to_string(d.reason)));
    CHECK(cli["delay_us"] == d.delay.count());
    CHECK(cli["next_attempt"] == (d.retry ? json(d.next_attempt) : json(nullptr)));
    CHECK(cli["category"] == std::string(to_string(d.category)));
    CHECK(cli["matched"] == text_or_null(d.matched));
    CHECK(cli["route"] == text_or_null(d.route));
    CHECK(cli["policy"] == policy);
}

void require_same_decision(const fs::path& file, const std::vector<std::string>& args,
                           std::uint64_t seed) {
    std::vector<std::string> arguments{"decide", file.string()};
    arguments.insert(arguments.end(), args.begin(), args.end());
    arguments.insert(arguments.end(), {"--seed", std::to_string(seed)});
    std::string line = "rebound";
    for (const std::string& a : arguments) {
        line += " " + a;
    }
    INFO(line);
    const AdapterDecision adapter = adapter_decision(file, parse_failure(args), seed);
    require_same(run_cli_json(arguments), adapter.decision, adapter.policy->name());
}

// One database error a vendor's driver reports: the session lost, as each map names it.
struct VendorError {
    std::string vendor;
    std::string sqlstate;
    std::optional<std::int64_t> native;
};

const std::vector<VendorError> kSessionLost{{"postgresql", "57P01", 1},   {"mysql", "HY000", 2013},
                                            {"sqlserver", "08S01", 233},  {"oracle", "", 3113},
                                            {"db2", "08001", -30081},     {"sqlite", "HY000", 14},
                                            {"cockroachdb", "57P01", {}}, {"generic", "08S01", {}}};

std::vector<std::string> error_options(const VendorError& e, const std::string& phase) {
    std::vector<std::string> options{"--vendor", e.vendor, "--phase", phase};
    if (!e.sqlstate.empty()) {
        options.insert(options.end(), {"--sqlstate", e.sqlstate});
    }
    if (e.native) {
        options.insert(options.end(), {"--native", std::to_string(*e.native)});
    }
    return options;
}

}  // namespace

TEST_CASE("decide answers every conformance decide case as the adapters do", "[parity]") {
    std::ifstream lines(kConformance / "decide-cases.jsonl");
    std::string line;
    int cases = 0;
    while (std::getline(lines, line)) {
        if (line.empty()) {
            continue;
        }
        const json vector = json::parse(line);
        const std::vector<std::string> args = vector["args"].get<std::vector<std::string>>();
        for (const std::uint64_t seed : {1U, 7919U, 104729U}) {
            require_same_decision(kConformance / vector["file"].get<std::string>(), args, seed);
        }
        ++cases;
    }
    CHECK(cases >= 28);
}

TEST_CASE("classify answers as the ODBC adapter for every vendor and phase", "[parity]") {
    std::vector<VendorError> errors = kSessionLost;
    for (const char* vendor : {"postgresql", "mysql", "sqlserver", "oracle", "db2", "sqlite",
                               "cockroachdb", "generic"}) {
        errors.push_back({vendor, "40001", {}});  // serialization failure, generic map
        errors.push_back({vendor, "HYT00", {}});  // a timeout: its category depends on the phase
    }
    for (const VendorError& e : errors) {
        for (const rebound::DatabasePhaseInfo& phase : rebound::kDatabasePhaseTable) {
            const std::string phase_name(phase.wire_name);
            std::vector<std::string> arguments{"classify"};
            const auto options = error_options(e, phase_name);
            arguments.insert(arguments.end(), options.begin(), options.end());
            const json cli = run_cli_json(arguments);
            const rebound::odbc::DatabaseFailure adapter = rebound::odbc::classify_failure(
                classifier(), rebound::parse_vendor(e.vendor), phase.phase,
                {{e.sqlstate, e.native.value_or(0), ""}});
            INFO(e.vendor << " " << e.sqlstate << " " << e.native.value_or(0) << " " << phase_name);
            CHECK(cli["phase"] == phase_name);
            CHECK(cli["category"] == std::string(to_string(adapter.category)));
            CHECK(cli["matched"] ==
                  (adapter.matched.empty() ? json(nullptr) : json(adapter.matched)));
        }
    }
}

TEST_CASE("a session lost during a commit is outcome unknown in both, in every vendor",
          "[parity]") {
    for (const VendorError& e : kSessionLost) {
        for (const rebound::DatabasePhaseInfo& phase : rebound::kDatabasePhaseTable) {
            const std::string phase_name(phase.wire_name);
            INFO(e.vendor << " " << phase_name);
            std::vector<std::string> args{"--handler", "ApproveCase", "--attempt", "1"};
            const auto options = error_options(e, phase_name);
            args.insert(args.end(), options.begin(), options.end());
            require_same_decision(kConformance / "04-tiers.yaml", args, 1);
            std::vector<std::string> idempotent = args;
            idempotent.push_back("--idempotent");
            require_same_decision(kConformance / "04-tiers.yaml", idempotent, 1);
            // The case: whatever the maps say in other phases, a session that ended
            // during a commit stops a handler that is not idempotent.
            const json decision = run_cli_json([&] {
                std::vector<std::string> a{"decide", (kConformance / "04-tiers.yaml").string()};
                a.insert(a.end(), args.begin(), args.end());
                return a;
            }());
            if (phase.phase == rebound::DatabasePhase::Commit) {
                CHECK(decision["category"] == "commit_outcome_unknown");
                CHECK(decision["reason"] == "outcome_unknown");
            } else {
                CHECK(decision["category"] != "commit_outcome_unknown");
            }
        }
    }
}
