// rebound decide PATH --handler NAME --attempt N [error options] [--elapsed D] [--idempotent]
//                [--seed N] [--format text|json]
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>

#include "cli_support.hpp"
#include "explain_report.hpp"
#include "protocol_options.hpp"
#include "rebound/decision.hpp"
#include "rebound/dsl/diagnostic.hpp"
#include "rebound/dsl/syntax.hpp"
#include "rebound/dsl/text_toolkit/suggestions.hpp"
#include "vendor_maps.hpp"

namespace rebound::cli {
namespace {

struct DecideOptions {
    std::string path;
    std::string handler;
    int attempt = 1;
    std::string category;
    std::string sqlstate;
    std::string vendor;
    std::optional<std::int64_t> native;
    std::string phase = "execute";
    ProtocolOptions protocol;  // --http, --transport, --grpc, --header, --method, --now
    std::string error_type;
    std::string message;
    std::string elapsed = "0ms";
    std::string previous_delay = "0ms";
    std::string server_delay;  // a server's delay hint, empty when none
    bool server_refuses = false;
    bool idempotent = false;
    std::uint64_t seed = 1;
    std::string format = "text";
    std::string vendor_maps;
};

// Reads a duration option; prints a usage error and returns nullopt when it is not one.
std::optional<Duration> duration_option(const std::string& name, const std::string& text) {
    std::string error;
    const auto value = dsl::parse_duration(text, error);
    if (!value) {
        std::cerr << "rebound decide: " << name << ": " << printable(error) << '\n';
    }
    return value;
}

// "did you mean 'deadlock'?", else the list of categories.
std::string category_suggestion(std::string_view unknown) {
    std::vector<std::string_view> names;
    names.reserve(std::size(kCategoryTable));
    for (const CategoryInfo& info : kCategoryTable) {
        names.push_back(info.wire_name);
    }
    return dsl::suggestion_for(unknown, names);
}

// Usage errors of the error options that CLI11 cannot express; prints them. Returns false on one.
bool check_error_options(const DecideOptions& options) {
    const bool any_error_option = !options.category.empty() || !options.sqlstate.empty() ||
                                  options.native || options.protocol.any_protocol() ||
                                  !options.error_type.empty() || !options.message.empty() ||
                                  !options.server_delay.empty() || options.server_refuses;
    if (!any_error_option) {
        std::cerr << "rebound decide: say what failed: give --category, --sqlstate, --native, "
                     "--http, --transport, --grpc, --error, --message, --server-delay or "
                     "--server-refuses\n";
        return false;
    }
    if (options.native && options.vendor.empty()) {
        std::cerr << "rebound decide: --native " << *options.native
                  << " needs --vendor: native codes mean something only for one vendor\n";
        return false;
    }
    if (!options.sqlstate.empty() && options.vendor.empty() && options.category.empty()) {
        std::cerr << "rebound decide: no --vendor given: SQLSTATE " << printable(options.sqlstate)
                  << " is classified as vendor 'generic' (the ISO/ODBC map only)\n";
    }
    return true;
}

// Builds the error description; views point into `options`, which outlives it.
std::optional<ErrorDescription> describe_error(const DecideOptions& options) {
    if (!check_error_options(options)) {
        return std::nullopt;
    }
    ErrorDescription error;
    if (!options.category.empty()) {
        error.category = parse_category(options.category);
        if (!error.category) {
            std::cerr << "rebound decide: unknown category '" << printable(options.category)
                      << "': " << category_suggestion(options.category) << '\n';
            return std::nullopt;
        }
    }
    if (!options.vendor.empty()) {
        error.vendor = parse_vendor(options.vendor);
        if (!error.vendor) {
            std::cerr << "rebound decide: unknown vendor '" << printable(options.vendor)
                      << "': expected one of postgresql mysql sqlserver oracle db2 sqlite "
                         "cockroachdb generic\n";
            return std::nullopt;
        }
    }
    if (!options.sqlstate.empty() || options.native) {
        const auto record = sql_error_record("decide", options.vendor, options.sqlstate,
                                             options.native, options.phase);
        if (!record) {
            return std::nullopt;
        }
    }
    error.sqlstate = options.sqlstate;
    error.native_code = options.native;
    error.error_type = options.error_type;
    error.message = options.message;
    error.server_refused = options.server_refuses;
    if (!options.server_delay.empty()) {
        error.server_delay = duration_option("--server-delay", options.server_delay);
        if (!error.server_delay) {
            return std::nullopt;
        }
    }
    // Checked here, before the file is read, so that bad protocol options are usage errors first;
    // the classification that counts is add_protocol_failure's, once idempotence is known.
    if (options.protocol.any_protocol() &&
        !classify_protocol("decide", options.protocol, options.idempotent)) {
        return std::nullopt;
    }
    return error;
}

// Adds the HTTP or gRPC failure of the options to `error` (docs/protocols.md): an explicit
// --category stands, and an explicit --server-delay wins over a hint read from a header.
void add_protocol_failure(const DecideOptions& options, bool idempotent, ErrorDescription& error) {
    if (!options.protocol.any_protocol()) {
        return;
    }
    const auto classified = classify_protocol("decide", options.protocol, idempotent);
    const ErrorDescription& found = classified->error;
    if (!error.category) {
        error.category = found.category;
    }
    error.http_status = found.http_status;
    error.grpc_status = found.grpc_status;
    if (!error.server_delay) {
        error.server_delay = found.server_delay;
    }
    error.server_refused = error.server_refused || found.server_refused;
}

Json decision_json(const Decision& d, const Policy& policy) {
    const auto text_or_null = [](std::string_view text) {
        return text.empty() ? Json(nullptr) : Json(std::string(text));
    };
    return Json{{"retry", d.retry},
                {"reason", std::string(to_string(d.reason))},
                {"delay_us", d.delay.count()},
                {"next_attempt", d.retry ? Json(d.next_attempt) : Json(nullptr)},
                {"category", std::string(to_string(d.category))},
                {"matched", text_or_null(d.matched)},
                {"route", text_or_null(d.route)},
                {"policy", policy.name()}};
}

std::string decision_text(const Decision& d, const Policy& policy) {
    std::ostringstream out;
    if (d.retry) {
        out << "retry: attempt " << d.next_attempt << " after " << to_milliseconds(d.delay)
            << " ms";
    } else {
        out << "stop: " << to_string(d.reason);
    }
    out << " (policy " << policy.name() << ", category " << to_string(d.category);
    if (!d.matched.empty()) {
        out << ", matched " << d.matched;
    }
    if (!d.route.empty()) {
        out << ", route " << d.route;
    }
    out << ")";
    return out.str();
}

int run_decide(const DecideOptions& options) {
    const auto elapsed = duration_option("--elapsed", options.elapsed);
    const auto previous = duration_option("--previous-delay", options.previous_delay);
    auto error = describe_error(options);
    if (!elapsed || !previous || !error) {
        return kExitUsage;
    }
    int exit_code = kExitOk;
    // A database error without an explicit category is classified with the vendor maps first,
    // as the ODBC adapter does (docs/cli.md); --category, when given, stands.
    std::shared_ptr<const SqlErrorClassifier> classifier;
    std::string normalized_sqlstate;  // error->sqlstate views it
    if (!error->category && (!options.sqlstate.empty() || options.native)) {
        const auto record = sql_error_record("decide", options.vendor, options.sqlstate,
                                             options.native, options.phase);
        classifier =
            load_vendor_maps_or_report(options.vendor_maps, exit_code, "decide", record->vendor);
        if (!classifier) {
            return exit_code;
        }
        // As the adapter describes its failures (DatabaseFailure::description): the category
        // with the phase rules applied, and the SQLSTATE (normalised) and native code of the
        // record that decided, none when it was a warning.
        const SqlFailureClassification classification = classify_as_adapter(*classifier, *record);
        error->category = classification.category;
        if (classification.record) {
            normalized_sqlstate = normalize_sqlstate(options.sqlstate).view();
        } else {
            error->native_code.reset();
        }
        error->sqlstate = normalized_sqlstate;
    }
    const auto loaded = load_or_report(options.path, exit_code);
    if (!loaded) {
        return exit_code;
    }
    const HandlerResolution resolution = loaded->policy_set->resolve(options.handler);
    AttemptContext context;
    context.attempt = options.attempt;
    context.elapsed = *elapsed;
    context.previous_delay = *previous;
    // --idempotent stands for the handler's code; a binding that states `idempotent` wins over it.
    context.idempotent = resolution.idempotent_source == IdempotenceSource::Binding
                             ? resolution.idempotent
                             : options.idempotent;
    add_protocol_failure(options, context.idempotent, *error);
    SeededRandomSource random(options.seed);
    const Decision decision = decide(*resolution.policy, *error, context, random);
    if (options.format == "json") {
        print_line(json_output(decision_json(decision, *resolution.policy)));
    } else {
        print_text(decision_text(decision, *resolution.policy));
    }
    return kExitOk;
}

}  // namespace

void register_decide(CLI::App& app, CommandOutcome& outcome) {
    auto o = std::make_shared<DecideOptions>();
    CLI::App* command = app.add_subcommand(
        "decide",
        "Take one retry decision for a handler's failed attempt (deterministic with --seed)");
    command->add_option("PATH", o->path, "Policy file (.yaml .yml .json .rebound)")->required();
    command->add_option("--handler", o->handler, "Handler name")->required();
    add_whole_number_option(*command, "--attempt", o->attempt, 1, 1000000,
                            "The attempt that failed (1-based)")
        ->required();
    command->add_option("--category", o->category, "Error category, e.g. deadlock");
    command->add_option("--sqlstate", o->sqlstate, "SQLSTATE, e.g. 40001");
    command->add_option("--vendor", o->vendor, "Database vendor, e.g. postgresql");
    add_native_code_option(*command, o->native, "Vendor's native error code");
    add_phase_option(*command, o->phase);
    add_protocol_options(*command, o->protocol);
    command->add_option("--error", o->error_type, "Error type name, e.g. io.timeout.read");
    command->add_option("--message", o->message, "Error message");
    command->add_option("--elapsed", o->elapsed,
                        "Time since the first attempt started, e.g. 2950ms");
    command->add_option("--previous-delay", o->previous_delay,
                        "The delay before the failed attempt (decorrelated jitter)");
    command->add_option("--server-delay", o->server_delay,
                        "A server's delay hint (Retry-After, gRPC pushback), e.g. 1500ms");
    command->add_flag("--server-refuses", o->server_refuses,
                      "The server said not to retry (a negative gRPC pushback)");
    command->add_flag("--idempotent", o->idempotent,
                      "The handler's code declares it idempotent (a binding stating idempotent "
                      "wins)");
    add_seed_option(*command, o->seed);
    command->add_option("--format", o->format, "Output format")
        ->check(CLI::IsMember({"text", "json"}));
    command->add_option(
        "--vendor-maps", o->vendor_maps,
        "Directory of vendor maps (default: $REBOUND_DATA_DIR/vendors or the shipped maps)");
    command->callback([o, &outcome] { outcome.exit_code = run_decide(*o); });
}

}  // namespace rebound::cli
