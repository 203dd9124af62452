// rebound classify [--vendor V] [--sqlstate S] [--native N]
//                  [--phase connect|execute|commit|rollback]
//                  [--format text|json] [--vendor-maps DIR]
// rebound classify --http STATUS | --transport WHERE | --grpc STATUS [--header 'N: v']...
//                  [--method M] [--now HTTP-DATE] [--format text|json]
#include <iostream>
#include <memory>
#include <sstream>

#include "cli_support.hpp"
#include "explain_report.hpp"
#include "protocol_options.hpp"
#include "vendor_maps.hpp"

namespace rebound::cli {
namespace {

struct ClassifyOptions {
    std::string vendor = "generic";
    std::string sqlstate;
    std::optional<std::int64_t> native;
    std::string phase = "execute";
    std::string format = "text";
    std::string vendor_maps;
    ProtocolOptions protocol;
};

Json classification_json(const SqlErrorRecord& record, const SqlFailureClassification& result) {
    const CategoryInfo& info = category_info(result.category);
    const std::string matched = result.matched();
    // Copied at once: the view must not outlive the normalised value.
    const std::string sqlstate(normalize_sqlstate(record.sqlstate).view());
    return Json{{"vendor", std::string(to_string(record.vendor.value_or(Vendor::Generic)))},
                {"sqlstate", sqlstate.empty() ? Json(nullptr) : Json(sqlstate)},
                {"native", record.native_code ? Json(*record.native_code) : Json(nullptr)},
                {"phase", std::string(to_string(record.phase))},
                {"category", std::string(info.wire_name)},
                {"retryable_by_default", info.retryable_by_default},
                {"restart_scope", std::string(to_string(info.restart_scope))},
                {"matched", matched.empty() ? Json(nullptr) : Json(matched)}};
}

std::string classification_text(const SqlFailureClassification& result) {
    const CategoryInfo& info = category_info(result.category);
    const std::string matched = result.matched();
    std::ostringstream out;
    out << info.wire_name << " ("
        << (info.retryable_by_default ? "retryable by default" : "not retryable by default")
        << ", restart " << to_string(info.restart_scope) << ", matched "
        << (matched.empty() ? std::string_view("nothing") : std::string_view(matched)) << ")";
    return out.str();
}

Json protocol_json(const ProtocolOptions& options, const ProtocolClassification& result) {
    const std::optional<ErrorCategory> category = result.error.category;
    Json out{{"protocol", result.protocol}, {"status", result.status}};
    if (result.protocol == "http") {
        out["method"] = options.method;
        if (!options.transport.empty()) {
            out["transport"] = options.transport;
        }
    }
    out["idempotent"] = result.idempotent;
    out["category"] = category ? Json(std::string(to_string(*category))) : Json(nullptr);
    out["retryable_by_default"] = category && category_info(*category).retryable_by_default;
    out["server_delay_ms"] =
        result.error.server_delay
            ? Json(std::chrono::duration_cast<std::chrono::milliseconds>(*result.error.server_delay)
                       .count())
            : Json(nullptr);
    out["server_refused"] = result.error.server_refused;
    return out;
}

std::string protocol_text(const ProtocolClassification& result) {
    const std::optional<ErrorCategory> category = result.error.category;
    std::ostringstream out;
    if (!category) {
        out << "not an error";
    } else {
        out << to_string(*category) << " ("
            << (category_info(*category).retryable_by_default ? "retryable by default"
                                                              : "not retryable by default");
        out << (result.idempotent ? ", idempotent" : ", not idempotent") << ")";
    }
    if (result.error.server_refused) {
        out << "; the server refuses retries";
    } else if (result.error.server_delay) {
        out << "; server delay " << to_milliseconds(*result.error.server_delay) << " ms";
    }
    return out.str();
}

int run_protocol_classify(const ClassifyOptions& options) {
    if (!options.sqlstate.empty() || options.native) {
        std::cerr << "rebound classify: --sqlstate and --native classify a database error; give "
                     "them without --http, --transport or --grpc\n";
        return kExitUsage;
    }
    const auto result = classify_protocol("classify", options.protocol, false);
    if (!result) {
        return kExitUsage;
    }
    if (options.format == "json") {
        print_line(json_output(protocol_json(options.protocol, *result)));
    } else {
        print_text(protocol_text(*result));
    }
    return kExitOk;
}

int run_classify(const ClassifyOptions& options) {
    if (options.protocol.any_protocol()) {
        return run_protocol_classify(options);
    }
    if (options.sqlstate.empty() && !options.native) {
        std::cerr << "rebound classify: give --sqlstate, --native or both (a database error), or "
                     "--http, --transport or --grpc (a protocol failure)\n";
        return kExitUsage;
    }
    const auto record = sql_error_record("classify", options.vendor, options.sqlstate,
                                         options.native, options.phase);
    if (!record) {
        return kExitUsage;
    }
    int exit_code = kExitOk;
    const auto classifier =
        load_vendor_maps_or_report(options.vendor_maps, exit_code, "classify", record->vendor);
    if (!classifier) {
        return exit_code;
    }
    const SqlFailureClassification result = classify_as_adapter(*classifier, *record);
    if (options.format == "json") {
        print_line(json_output(classification_json(*record, result)));
    } else {
        print_text(classification_text(result));
    }
    return kExitOk;
}

}  // namespace

void register_classify(CLI::App& app, CommandOutcome& outcome) {
    auto o = std::make_shared<ClassifyOptions>();
    CLI::App* command = app.add_subcommand(
        "classify",
        "Classify one database error with the vendor maps, as the ODBC adapter does, or one HTTP "
        "or gRPC failure as docs/protocols.md says");
    command
        ->add_option("--vendor", o->vendor,
                     "postgresql mysql sqlserver oracle db2 sqlite cockroachdb generic")
        ->capture_default_str();
    command->add_option("--sqlstate", o->sqlstate,
                        "SQLSTATE, e.g. 40001 (ODBC 2 states are normalised)");
    add_native_code_option(*command, o->native, "Vendor's native error code, e.g. 1213");
    add_phase_option(*command, o->phase);
    add_protocol_options(*command, o->protocol);
    command->add_option("--format", o->format, "Output format")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    command->add_option(
        "--vendor-maps", o->vendor_maps,
        "Directory of vendor maps (default: $REBOUND_DATA_DIR/vendors or the shipped maps)");
    command->callback([o, &outcome] { outcome.exit_code = run_classify(*o); });
}

}  // namespace rebound::cli
