#include "limits_check.hpp"

#include <string>

#include "diagnostic_sink.hpp"
#include "rebound/dsl/input_limits.hpp"

namespace rebound::dsl::detail {
namespace {

class LimitChecker {
  public:
    LimitChecker(const Document& document, Diagnostics& out) : file_(document.file), out_(out) {}

    void name(const Located<std::string>& name, const std::string& field) {
        if (name.value.size() > kMaxNameBytes) {
            add_error(out_, file_, DiagnosticCode::LimitExceeded, name.position, field,
                      "a name of " + std::to_string(name.value.size()) +
                          " bytes is longer than the limit of " + std::to_string(kMaxNameBytes),
                      "use a shorter name");
        }
    }

    template <typename T>
    void list(const std::optional<ListNode<T>>& list, const std::string& field) {
        if (list && list->items.size() > kMaxListItems) {
            add_error(out_, file_, DiagnosticCode::LimitExceeded, list->position, field,
                      "a list of " + std::to_string(list->items.size()) +
                          " items is longer than the limit of " + std::to_string(kMaxListItems),
                      "name error categories or SQLSTATE classes instead of single codes");
        }
    }

    void fields(const PolicyFields& fields, const std::string& prefix) {
        for (const auto& [field, value] : fields.scalars) {  // extends, breaker
            if (info_of(field).kind == FieldKind::Name) {
                name(Located<std::string>{std::get<std::string>(value.value), value.position},
                     prefix + std::string(info_of(field).wire_name));
            }
        }
        list(fields.retry_on, prefix + "retry_on");
        list(fields.never_retry_on, prefix + "never_retry_on");
        list(fields.retry_if, prefix + "retry_if");
        list(fields.routes, prefix + "routes");
        if (fields.routes) {
            for (const RouteNode& route : fields.routes->items) {
                if (route.target) {
                    name(*route.target, prefix + "routes.target");
                }
            }
        }
        if (fields.retry_if) {
            for (const Located<std::string>& predicate : fields.retry_if->items) {
                name(predicate, prefix + "retry_if");
            }
        }
    }

  private:
    const std::string& file_;
    Diagnostics& out_;
};

}  // namespace

void enforce_document_limits(Document& document, Diagnostics& diagnostics) {
    LimitChecker check(document, diagnostics);
    if (document.policies.size() > kMaxPolicies) {
        const PolicyNode& first_beyond = document.policies[kMaxPolicies];
        add_error(diagnostics, document.file, DiagnosticCode::LimitExceeded,
                  first_beyond.name.position, "policies." + first_beyond.name.value,
                  "more than " + std::to_string(kMaxPolicies) +
                      " policies in one file: this one and the ones after it were not read",
                  "split the policies over several services, or share settings with defaults");
        document.policies.resize(kMaxPolicies);
    }
    if (document.service) {
        check.name(*document.service, "service");
    }
    if (document.default_policy) {
        check.name(*document.default_policy, "default");
    }
    if (document.defaults) {
        check.fields(document.defaults->fields, "defaults.");
    }
    for (const PolicyNode& policy : document.policies) {
        check.name(policy.name, "policies." + policy.name.value.substr(0, kMaxNameBytes));
        check.fields(policy.fields, "policies." + policy.name.value.substr(0, kMaxNameBytes) + ".");
    }
    for (const HandlerNode& handler : document.handlers) {
        const std::string field = "handlers." + handler.key.value.substr(0, kMaxNameBytes);
        check.name(handler.key, field);
        check.name(handler.policy, field);
    }
    for (const BreakerNode& breaker : document.breakers) {
        const std::string field = "breakers." + breaker.name.value.substr(0, kMaxNameBytes);
        check.name(breaker.name, field);
        check.list(breaker.failures, field + ".failures");
    }
}

std::size_t cap_diagnostics(Diagnostics& diagnostics, const std::string& file) {
    if (diagnostics.size() <= kMaxDiagnostics) {
        return 0;
    }
    const std::size_t dropped = diagnostics.size() - kMaxDiagnostics;
    const SourcePosition last_kept = diagnostics[kMaxDiagnostics - 1].position;
    diagnostics.resize(kMaxDiagnostics);
    add_error(diagnostics, file, DiagnosticCode::LimitExceeded, last_kept, "",
              std::to_string(dropped) + " more diagnostics were left out (at most " +
                  std::to_string(kMaxDiagnostics) + " are reported for one file)",
              "fix the ones shown and check again");
    return dropped;
}

}  // namespace rebound::dsl::detail

namespace rebound::dsl {

std::optional<Diagnostic> check_input_size(std::string_view file, std::uintmax_t size,
                                           std::string_view what) {
    if (size <= kMaxInputBytes) {
        return std::nullopt;
    }
    Diagnostic diagnostic;
    diagnostic.code = DiagnosticCode::LimitExceeded;
    diagnostic.message = "the file has " + std::to_string(size) +
                         " bytes, more than the limit of " + std::to_string(kMaxInputBytes) +
                         " (1 MiB) for " + std::string(what);
    diagnostic.file = std::string(file);
    return diagnostic;
}

}  // namespace rebound::dsl
