// The text DSL front end (.rebound): text to a Document, one line at a time.
//
// Each line goes through two steps. First the PEGTL grammar (text/grammar.hpp) checks the shape
// of the line's statement, and the actions (actions.hpp) record the statement's kind and its parts
// as Tokens (role, text, position) without interpreting them. Then the reader places the statement
// (top level or inside a block), converts its parts with the shared helpers of syntax.hpp, and
// fills the Document, reporting every value it cannot read and leaving that value absent
// (document.hpp's front-end contract).
//
// Recovery: a syntax error drops its own statement only; reading goes on with the next line, so
// one pass reports every broken line. A block left open is closed where a statement that only
// stands at the top level appears (`policy`, `handler`, ...), or at the end of the file, with a
// "missing '}'" error; its statements are kept. A top-level line with an unknown first word that
// ends in '{' (`polcy p {`) opens a block whose statements are checked and then dropped, so one
// typo gives one error. Parsing stops after kMaxErrors errors.
//
// Robustness: no recursion depends on the input (the grammar has none, the reader walks lines),
// and the text quoted in messages is cut short and made valid UTF-8, so that no input (huge
// lines, NUL bytes, invalid UTF-8) can make a message unprintable or huge.
//
// TextReader is declared in text_reader.hpp; the statements of breaker blocks, `server delay` and
// `hedge` are read in reader_resilience.cpp.
#include <tao/pegtl.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "diagnostic_sink.hpp"
#include "field_locations.hpp"
#include "rebound/dsl/parse.hpp"
#include "rebound/dsl/text_toolkit/numbers.hpp"
#include "rebound/dsl/text_toolkit/quoting.hpp"
#include "rebound/dsl/text_toolkit/suggestions.hpp"
#include "rebound/error_category.hpp"
#include "rebound/output_text.hpp"
#include "rebound/policy_field.hpp"
#include "rebound/vendor.hpp"
#include "text/actions.hpp"
#include "text/grammar.hpp"
#include "text/grammar_errors.hpp"
#include "text/line_parts.hpp"
#include "text/text_helpers.hpp"
#include "text/text_reader.hpp"
#include "text/vocabulary.hpp"

namespace rebound::dsl::text {
namespace {

namespace pegtl = tao::pegtl;

// After this many errors the rest of the file is not read (as compilers' -fmax-errors): a
// garbage file must not produce millions of diagnostics.
constexpr std::size_t kMaxErrors = 200;
// The word that, alone after `retry on`, `never on`, `retry if` or `routes`, states an empty list.
constexpr std::string_view kEmptyListWord = "none";

}  // namespace

void TextReader::report(DiagnosticCode code, SourcePosition position, std::string field,
                        std::string message, std::string suggestion) {
    if (stopped_) {
        return;
    }
    detail::add_error(result_.diagnostics, file_, code,
                      position.known() ? position : SourcePosition{1, 1}, std::move(field),
                      std::move(message), std::move(suggestion));
    if (++errors_ >= kMaxErrors) {
        Diagnostic last;
        last.code = DiagnosticCode::SyntaxError;
        last.message = "too many errors (" + std::to_string(kMaxErrors) +
                       "): the rest of the file was not read";
        last.file = file_;
        last.position = result_.diagnostics.back().position;
        result_.diagnostics.push_back(std::move(last));
        stopped_ = true;
    }
}

// ---- Lines -------------------------------------------------------------------------------------

void TextReader::read(std::string_view source) {
    std::size_t offset = 0;
    // A UTF-8 byte order mark is not text; columns are counted after it, as editors show them.
    if (source.starts_with("\xEF\xBB\xBF")) {
        offset = 3;
    }
    std::uint32_t number = 0;
    while (!stopped_) {
        const std::size_t newline = source.find('\n', offset);
        const std::size_t end = newline == std::string_view::npos ? source.size() : newline;
        std::string_view line = source.substr(offset, end - offset);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        if (number < std::numeric_limits<std::uint32_t>::max()) {
            ++number;
        }
        read_line(line, number, offset);
        if (newline == std::string_view::npos) {
            break;
        }
        offset = newline + 1;
    }
    if (block_ && !stopped_) {
        report_unclosed_block(end_of_text_, "close the block with '}' at the end of the file");
    }
    if (block_) {
        close_block();
    }
    check_header_order();
    // Reported in the order of the text (the header order is checked at the end of the file).
    std::stable_sort(result_.diagnostics.begin(), result_.diagnostics.end(),
                     [](const Diagnostic& a, const Diagnostic& b) {
                         return a.position.line != b.position.line
                                    ? a.position.line < b.position.line
                                    : a.position.column < b.position.column;
                     });
}

void TextReader::read_line(std::string_view line, std::uint32_t number, std::size_t offset) {
    const std::size_t last = line.find_last_not_of(" \t");
    if (last != std::string_view::npos) {
        end_of_text_ = {number, narrow(last + 2)};
    }
    LineParts parts;
    const std::optional<SyntaxFailure> failure = parse_line(line, number, offset, parts);
    place(parts, failure, line);
}

namespace {

// The policy field a block statement sets ("max_attempts" for `attempts`), or empty for a
// statement that is not about one field. A policy block's statements are looked up in the field
// table by their DSL keyword; a breaker block's settings are not policy fields.
std::string_view field_of(const LineParts& parts) noexcept {
    if (parts.statement == Statement::ScalarField) {
        return rebound::info_of(parts.field).wire_name;
    }
    const Statement statement =
        parts.statement == Statement::RoutesNone ? Statement::Route : parts.statement;
    const StatementInfo& said = info_of(statement);
    if (said.place == Place::Block) {
        for (const PolicyFieldInfo& info : policy_fields()) {
            if (is_top_level(info.id) && info.dsl_keyword == said.spelling) {
                return info.wire_name;
            }
        }
        return {};
    }
    switch (statement) {
        case Statement::Open:
            return "open_for";
        case Statement::HalfOpen:
            return "half_open_calls";
        case Statement::SlowCall:
            return "slow_call";
        case Statement::Failures:
            return "failures";
        default:
            return {};
    }
}

// "; a duration has no space before its unit: write 500ms" when the word line[begin, end) is a
// duration unit that follows a number and a blank ("500 ms"); else empty.
std::string unit_after_space_hint(std::string_view line, std::size_t begin, std::size_t end) {
    constexpr std::string_view kUnits[] = {"us", "ms", "s", "m", "h"};
    const std::string_view unit = line.substr(begin, end - begin);
    if (std::find(std::begin(kUnits), std::end(kUnits), unit) == std::end(kUnits)) {
        return {};
    }
    std::size_t number_end = begin;
    while (number_end > 0 && is_blank(line[number_end - 1])) {
        --number_end;
    }
    std::size_t number_begin = number_end;
    while (number_begin > 0 &&
           (std::isdigit(static_cast<unsigned char>(line[number_begin - 1])) != 0 ||
            line[number_begin - 1] == '.')) {
        --number_begin;
    }
    const bool number_alone = number_begin < number_end && number_end < begin &&
                              (number_begin == 0 || is_blank(line[number_begin - 1]));
    if (!number_alone) {
        return {};
    }
    return "; a duration has no space before its unit: write " +
           std::string(line.substr(number_begin, number_end - number_begin)) + std::string(unit);
}

}  // namespace

std::optional<SyntaxFailure> TextReader::parse_line(std::string_view line, std::uint32_t number,
                                                    std::size_t offset, LineParts& parts) {
    try {
        pegtl::memory_input<pegtl::tracking_mode::eager, pegtl::eol::lf_crlf, std::string_view>
            input(line.data(), line.data() + line.size(), std::string_view(file_), offset, number,
                  1);
        if (pegtl::parse<grammar, action, control>(input, parts)) {
            return std::nullopt;
        }
        // Unreachable: every line matches `grammar` or raises. Kept so that no input is lost.
        return SyntaxFailure{"expected a statement", {number, 1}};
    } catch (const pegtl::parse_error& error) {
        std::size_t index = 0;
        if (!error.positions().empty() && error.positions().front().column > 0) {
            index = std::min(error.positions().front().column - 1, line.size());
        }
        while (index < line.size() && is_blank(line[index])) {
            ++index;
        }
        std::string found = "the end of the line";
        std::string hint;
        if (index < line.size() && line[index] != '#') {
            std::size_t end = index;
            while (end < line.size() && !is_blank(line[end])) {
                ++end;
            }
            found = quoted_excerpt(line.substr(index, end - index));
            hint = unit_after_space_hint(line, index, end);
        }
        return SyntaxFailure{std::string(error.message()) + ", got " + found + hint,
                             {number, narrow(index + 1)}};
    }
}

void TextReader::place(const LineParts& parts, const std::optional<SyntaxFailure>& failure,
                       std::string_view line) {
    // `breaker {` with a broken name still means a breaker block, not a policy's breaker.
    const Place where = parts.statement == Statement::Breaker && failure && opens_block(line)
                            ? Place::TopLevel
                            : info_of(parts.statement).place;
    if (parts.statement == Statement::BlockEnd) {
        if (block_) {
            close_block();
        } else {
            report(DiagnosticCode::SyntaxError, parts.position, "",
                   "unexpected '}': no block is open here");
        }
    } else if (where == Place::TopLevel) {
        if (block_) {
            report_unclosed_block(parts.position, "close the block with '}' before this line");
            close_block();
        }
        note_top_level_statement(parts);
    } else if (parts.statement == Statement::Unknown) {
        if (!block_) {
            note_top_level_statement(parts);
        }
        report_unknown_statement(parts);
    } else if ((where == Place::Block || where == Place::BreakerBlock) &&
               (!block_ || (block_->kind != BlockKind::Unknown && !block_->reads(where)))) {
        report_misplaced(parts, where);
    }
    if (failure) {
        // A broken block statement leaves only its own field unread: the findings on the rest
        // of the policy (such as attempts with retries) are still reported.
        const std::string_view key = field_of(parts);
        std::string field;
        if (block_) {
            field = key.empty() ? block_->path : block_path(key);
        }
        report(DiagnosticCode::SyntaxError, failure->position, std::move(field), failure->message,
               misspelt_matcher_keyword(parts));
    }
    if (!stopped_) {
        read_statement(parts, failure.has_value(), line);
    }
}

void TextReader::read_statement(const LineParts& parts, bool failed, std::string_view line) {
    switch (parts.statement) {
        case Statement::Rebound:
            return read_rebound(parts, failed);
        case Statement::Service:
            return read_service(parts, failed);
        case Statement::Handler:
            return read_handler(parts, failed);
        case Statement::Default:
            return read_default(parts, failed);
        case Statement::Defaults:
        case Statement::Policy:
        case Statement::BreakerBlock: {
            const BlockKind kind = parts.statement == Statement::Defaults ? BlockKind::Defaults
                                   : parts.statement == Statement::Policy ? BlockKind::Policy
                                                                          : BlockKind::Breaker;
            // A broken header still opens its block when the line has its '{', so that the
            // block's statements are read in the block, not reported as misplaced; and closes
            // it again when the line has its '}' too (`policy p { attempts 3 }`).
            if (!failed) {
                open_block(parts, kind);
                return;
            }
            const std::string_view code = line.substr(0, line.find('#'));
            const std::size_t opening = code.find('{');
            if (opening != std::string_view::npos) {
                open_block(parts, kind);
                if (block_ && code.find('}', opening) != std::string_view::npos) {
                    close_block();
                }
            }
            return;
        }
        case Statement::Breaker:
            // `breaker {`: a breaker block whose header is broken (reported already).
            if (failed && !block_ && opens_block(line)) {
                open_block(parts, BlockKind::Breaker);
                return;
            }
            if (block_ && !failed && block_->reads(Place::Block)) {
                read_block_statement(parts);
            }
            return;
        case Statement::Unknown:
            // `polcy p {`: the user meant a block. Reading its body as a block (kept nowhere)
            // spares one error per statement in it and one for its '}'.
            if (!block_ && opens_block(line)) {
                open_unknown_block(parts);
            }
            return;
        case Statement::None:
        case Statement::BlockEnd:
            return;
        default:
            if (!block_ || failed) {
                return;
            }
            if (block_->reads(info_of(parts.statement).place)) {
                if (block_->kind == BlockKind::Breaker) {
                    read_breaker_statement(parts);
                } else {
                    read_block_statement(parts);
                }
            } else if (block_->kind == BlockKind::Unknown &&
                       info_of(parts.statement).place == Place::Block) {
                read_block_statement(parts);  // checked, then dropped with the block
            }
    }
}

// ---- Structure ---------------------------------------------------------------------------------

void TextReader::note_top_level_statement(const LineParts& parts) {
    if (leading_.size() < 2) {
        const std::string_view spelling = spelling_of(parts);
        leading_.push_back(
            LeadingStatement{parts.statement, parts.position,
                             std::string(spelling.empty() ? parts.first_word : spelling)});
    }
}

namespace {

// The statements of a breaker block, and what users write for them (the YAML keys).
constexpr Spelling kBreakerSpellings[] = {
    {"trip", "trip"},
    {"open", "open"},
    {"half", "half open"},
    {"half_open", "half open"},
    {"slow", "slow call"},
    {"slow_call", "slow call"},
    {"failures", "failures"},
    {"failure_ratio", "trip"},
    {"minimum_calls", "trip"},
    {"window", "trip"},
    {"consecutive_failures", "trip"},
    {"open_for", "open"},
    {"max_open_for", "open"},
    {"half_open_calls", "half open"},
};
constexpr std::string_view kBreakerStatementList = "trip, open, half open, slow call, failures";

}  // namespace

void TextReader::report_misplaced(const LineParts& parts, Place where) {
    if (!block_) {
        note_top_level_statement(parts);
    }
    const std::string spelling(spelling_of(parts));
    if (where == Place::BreakerBlock) {
        report(DiagnosticCode::SyntaxError, parts.position, block_ ? block_->path : "",
               "'" + spelling + "' belongs inside a breaker block",
               "write it between 'breaker NAME {' and '}'");
    } else if (block_) {
        report(
            DiagnosticCode::SyntaxError, parts.position, block_->path,
            "'" + spelling + "' belongs inside a policy or defaults block, not in " + block_->label,
            "a breaker block holds " + std::string(kBreakerStatementList));
    } else if (parts.statement == Statement::Breaker) {
        report(DiagnosticCode::SyntaxError, parts.position, "",
               "'breaker NAME' names a policy's breaker and belongs inside a policy or defaults "
               "block",
               "to declare a breaker, open a block: 'breaker NAME {'");
    } else {
        report(DiagnosticCode::SyntaxError, parts.position, "",
               "'" + spelling + "' belongs inside a policy or defaults block",
               "write it between 'policy NAME {' and '}'");
    }
}

void TextReader::report_unknown_statement(const LineParts& parts) {
    if (block_ && block_->kind == BlockKind::Breaker) {
        report(DiagnosticCode::UnknownKey, parts.position, block_->path,
               "unknown statement " + quoted_excerpt(parts.first_word) + " in " + block_->label +
                   ": expected one of " + std::string(kBreakerStatementList),
               statement_suggestion(parts.first_word, kBreakerSpellings));
        return;
    }
    if (block_) {
        std::string suggestion = statement_suggestion(parts.first_word, block_spellings());
        if (parts.first_word == "extends") {
            suggestion = "a policy extends another in its header: 'policy NAME extends PARENT {'";
        }
        report(DiagnosticCode::UnknownKey, parts.position, block_->path,
               "unknown statement " + quoted_excerpt(parts.first_word) + " in " + block_->label +
                   ": expected one of " + block_statement_list(),
               suggestion);
        return;
    }
    report(DiagnosticCode::UnknownKey, parts.position, "",
           "unknown statement " + quoted_excerpt(parts.first_word) + ": expected one of " +
               std::string(kTopLevelStatementList),
           statement_suggestion(parts.first_word, kTopLevelSpellings));
}

void TextReader::open_unknown_block(const LineParts& parts) {
    OpenBlock block;
    block.kind = BlockKind::Unknown;
    block.keep = false;
    block.line = parts.position.line;
    block.label = "the block of " + quoted_excerpt(parts.first_word);
    block.path = path_name(parts.first_word);
    block_ = std::move(block);
}

void TextReader::open_block(const LineParts& parts, BlockKind kind) {
    if (kind == BlockKind::Breaker) {
        open_breaker_block(parts);
        return;
    }
    OpenBlock block;
    block.kind = kind;
    block.line = parts.position.line;
    const Token* parent = parts.find(Role::Parent);
    if (kind == BlockKind::Defaults) {
        block.label = "'defaults'";
        block.path = "defaults";
        block.defaults.position = parts.position;
        if (defaults_given_) {
            report(DiagnosticCode::DuplicateKey, parts.position, "defaults",
                   detail::duplicate_message("'defaults'", defaults_given_->line),
                   "merge the two blocks; the first is used");
            block.keep = false;
        } else {
            defaults_given_ = parts.position;
        }
        if (parent != nullptr) {
            report(DiagnosticCode::UnknownKey, parent->position, "defaults.extends",
                   "defaults cannot extend a policy: 'extends' belongs in a policy header",
                   "write 'defaults {'");
        }
    } else {
        if (!document_.has_policies_section) {
            document_.has_policies_section = true;
            document_.policies_position = parts.position;
        }
        const Token* name = parts.find(Role::PolicyName);
        if (name == nullptr) {
            block.keep = false;  // the header's error has been reported
            block.label = "the policy";
            block.path = "policies";
        } else {
            block.label = "policy " + quoted_excerpt(name->text);
            block.path = "policies." + path_name(name->text);
            block.policy.name = Located<std::string>{std::string(name->text), name->position};
            block.policy.position = name->position;
            block.keep = first_named(policy_lines_, *name, "policy", block.path);
            if (parent != nullptr) {
                block.policy.fields.set(PolicyField::Extends, name_value(parent));
            }
        }
    }
    block_ = std::move(block);
    if (parts.find(Role::BlockClose) != nullptr) {
        close_block();
    }
}

// Policy names are unique in a file, and so are breaker names: reports a later one, naming the
// line of the first. Returns whether `name` is the first.
bool TextReader::first_named(std::map<std::string, std::uint32_t, std::less<>>& lines,
                             const Token& name, std::string_view kind, const std::string& path) {
    const auto [first, inserted] = lines.try_emplace(std::string(name.text), name.position.line);
    if (!inserted) {
        report(DiagnosticCode::DuplicateKey, name.position, path,
               detail::duplicate_message(std::string(kind) + " " + quoted_excerpt(name.text),
                                         first->second),
               "rename one of them; the first is used");
    }
    return inserted;
}

// `breaker NAME {`
void TextReader::open_breaker_block(const LineParts& parts) {
    OpenBlock block;
    block.kind = BlockKind::Breaker;
    block.line = parts.position.line;
    const Token* name = parts.find(Role::BreakerName);
    if (name == nullptr) {
        block.keep = false;  // the header's error has been reported
        block.label = "the breaker";
        block.path = "breakers";
    } else {
        block.label = "breaker " + quoted_excerpt(name->text);
        block.path = "breakers." + path_name(name->text);
        block.breaker.name = Located<std::string>{std::string(name->text), name->position};
        block.breaker.position = name->position;
        block.keep = first_named(breaker_lines_, *name, "breaker", block.path);
    }
    block_ = std::move(block);
    if (parts.find(Role::BlockClose) != nullptr) {
        close_block();
    }
}

void TextReader::close_block() {
    if (block_->keep) {
        switch (block_->kind) {
            case BlockKind::Defaults:
                document_.defaults = std::move(block_->defaults);
                break;
            case BlockKind::Policy:
                document_.policies.push_back(std::move(block_->policy));
                break;
            case BlockKind::Breaker:
                document_.breakers.push_back(std::move(block_->breaker));
                break;
            case BlockKind::Unknown:
                break;
        }
    }
    block_.reset();
}

void TextReader::report_unclosed_block(SourcePosition position, std::string_view suggestion) {
    report(DiagnosticCode::SyntaxError, position, block_->path,
           "missing '}' for " + block_->label + " opened at line " + std::to_string(block_->line),
           std::string(suggestion));
}

// `rebound 1` must come first and `service NAME` second. Checked at the end, when it is known
// whether a misplaced one comes later (then it is misplaced, else missing). Lines whose first
// word is unknown have been reported already and are not reported again here.
void TextReader::check_header_order() {
    if (leading_.empty() || leading_.front().statement == Statement::Unknown) {
        return;
    }
    const LeadingStatement& first = leading_.front();
    if (first.statement != Statement::Rebound) {
        if (rebound_given_) {
            report(DiagnosticCode::SyntaxError, *rebound_given_, "rebound",
                   "'rebound' must be the first statement of the file",
                   "move 'rebound 1' to the top");
        } else {
            report(DiagnosticCode::MissingField, first.position, "rebound",
                   "a .rebound file starts with 'rebound 1', but the first statement is " +
                       quoted_excerpt(first.word),
                   "add 'rebound 1' as the first line");
        }
        return;
    }
    if (leading_.size() < 2) {
        return;
    }
    const LeadingStatement& second = leading_[1];
    if (second.statement == Statement::Service || second.statement == Statement::Unknown) {
        return;
    }
    if (service_given_) {
        report(DiagnosticCode::SyntaxError, *service_given_, "service",
               "'service' must come right after 'rebound 1'",
               "move it to the second line of the file");
    } else {
        report(DiagnosticCode::MissingField, second.position, "service",
               "'service NAME' must follow 'rebound 1', but the next statement is " +
                   quoted_excerpt(second.word),
               "add a line such as 'service payments' after 'rebound 1'");
    }
}

// For statements given once per file: remembers the first; reports a later one. Returns whether
// this one is the first and can be read.
bool TextReader::first_given(std::optional<SourcePosition>& first, const LineParts& parts,
                             bool failed, std::string_view field) {
    if (!first) {
        first = parts.position;
        return !failed;
    }
    if (!failed) {
        report(DiagnosticCode::DuplicateKey, parts.position, std::string(field),
               detail::duplicate_message("'" + std::string(spelling_of(parts)) + "'", first->line),
               std::string(detail::kKeepTheFirst));
    }
    return false;
}

// ---- Top-level statements ----------------------------------------------------------------------

void TextReader::read_rebound(const LineParts& parts, bool failed) {
    if (first_given(rebound_given_, parts, failed, "rebound")) {
        document_.version =
            integer_value(parts.find(Role::Version), "the format version", "rebound");
    }
}

void TextReader::read_service(const LineParts& parts, bool failed) {
    if (first_given(service_given_, parts, failed, "service")) {
        document_.service = name_value(parts.find(Role::ServiceName));
    }
}

void TextReader::read_default(const LineParts& parts, bool failed) {
    if (first_given(default_given_, parts, failed, "default")) {
        document_.default_policy = name_value(parts.find(Role::BoundPolicy));
    }
}

void TextReader::read_handler(const LineParts& parts, bool failed) {
    const Token* key = parts.find(Role::HandlerKey);
    const Token* policy = parts.find(Role::BoundPolicy);
    if (failed || key == nullptr || policy == nullptr) {
        return;
    }
    const std::string field = "handlers." + path_name(key->text);
    const auto [first, inserted] =
        handler_lines_.try_emplace(std::string(key->text), key->position.line);
    if (!inserted) {
        report(DiagnosticCode::DuplicateKey, key->position, field,
               detail::duplicate_message("handler " + quoted_excerpt(key->text), first->second),
               std::string(detail::kKeepTheFirst));
        return;
    }
    HandlerNode node;
    node.key = Located<std::string>{std::string(key->text), key->position};
    node.position = key->position;
    node.policy = Located<std::string>{std::string(policy->text), policy->position};
    if (const Token* option = parts.find(Role::HandlerOption)) {
        if (option->text == "idempotent") {
            const Token* negation = parts.find(Role::HandlerNegation);
            node.idempotent = Located<bool>{
                negation == nullptr, negation != nullptr ? negation->position : option->position};
        } else {
            std::string suggestion = did_you_mean(option->text, {"idempotent"});
            report(DiagnosticCode::UnknownValue, option->position, field + ".idempotent",
                   "unknown handler option " + quoted_excerpt(option->text) +
                       ": the only option is 'idempotent'",
                   suggestion);
        }
    }
    read_call_graph_parts(parts, field, node);
    document_.handlers.push_back(std::move(node));
}

// `calls NAME, NAME` and `redeliveries N` of a handler line.
void TextReader::read_call_graph_parts(const LineParts& parts, const std::string& field,
                                       HandlerNode& node) {
    for (const Token& token : parts.tokens) {
        if (token.role != Role::Callee) {
            continue;
        }
        if (!node.calls) {
            node.calls = ListNode<Located<std::string>>{{}, token.position};
        }
        node.calls->items.push_back(Located<std::string>{std::string(token.text), token.position});
    }
    if (const Token* count = parts.find(Role::Redeliveries)) {
        node.redeliveries = integer_value(count, "'redeliveries'", field + ".redeliveries");
    }
}

// ---- Block statements --------------------------------------------------------------------------

// Each statement but `route` is given once per block: reports a later one. Returns whether this
// one is the first.
bool TextReader::first_in_block(const LineParts& parts) {
    const std::string_view spelling = spelling_of(parts);
    const auto [first, inserted] =
        block_->given.try_emplace(std::string(spelling), parts.position.line);
    if (!inserted) {
        report(DiagnosticCode::DuplicateKey, parts.position, block_->path,
               detail::duplicate_message("'" + std::string(spelling) + "'", first->second),
               std::string(detail::kKeepTheFirst));
    }
    return inserted;
}

void TextReader::read_block_statement(const LineParts& parts) {
    if (parts.statement != Statement::Route && !first_in_block(parts)) {
        return;
    }
    PolicyFields& fields = block_->fields();
    switch (parts.statement) {
        case Statement::Backoff:
            fields.backoff = read_backoff(parts);
            break;
        case Statement::Jitter:
            fields.jitter = read_jitter(parts);
            break;
        case Statement::ScalarField:
            read_scalar_statement(parts, fields);
            break;
        case Statement::RetryOn:
            fields.retry_on = read_matchers(parts, "retry_on");
            break;
        case Statement::NeverOn:
            fields.never_retry_on = read_matchers(parts, "never_retry_on");
            break;
        case Statement::RetryIf:
            fields.retry_if = read_predicates(parts);
            break;
        case Statement::OnExhausted: {
            const Token* word = parts.find(Role::ExhaustedAction);
            if (word == nullptr) {
                break;
            }
            if (const std::optional<std::string_view> action =
                    detail::word_in(info_of(PolicyField::OnExhausted), word->text)) {
                fields.set(PolicyField::OnExhausted, Field<std::string>{Located<std::string>{
                                                         std::string(*action), word->position}});
            } else {
                report(DiagnosticCode::UnknownValue, word->position, block_path("on_exhausted"),
                       "unknown on-exhausted action " + quoted_excerpt(word->text),
                       suggestion_for(word->text, words_of<ExhaustedAction>()));
            }
            break;
        }
        case Statement::Budget:
            fields.budget = read_budget(parts);
            break;
        case Statement::ServerDelay:
            fields.server_delay = read_server_delay(parts);
            break;
        case Statement::Hedge:
            fields.hedge = read_hedge(parts);
            break;
        case Statement::Breaker:
            fields.set(PolicyField::Breaker, name_value(parts.find(Role::BreakerName)));
            break;
        case Statement::RoutesNone:
            if (!route_conflicts(parts)) {
                fields.routes = ListNode<RouteNode>{{}, parts.position};
            }
            break;
        case Statement::Route:
            if (route_conflicts(parts)) {
                break;
            }
            if (std::optional<RouteNode> route = read_route(parts)) {
                if (!fields.routes) {
                    fields.routes = ListNode<RouteNode>{{}, parts.position};
                }
                fields.routes->items.push_back(std::move(*route));
            }
            break;
        default:
            break;
    }
}

// `KEYWORD VALUE` for a top-level scalar field: the value is read by the kind of the field's row.
void TextReader::read_scalar_statement(const LineParts& parts, PolicyFields& fields) {
    const Token* value = parts.find(Role::FieldValue);
    if (value == nullptr) {
        return;
    }
    const PolicyFieldInfo& info = info_of(parts.field);
    const std::string keyword = "'" + std::string(info.dsl_keyword) + "'";
    const std::string path = block_path(info.wire_name);
    switch (info.kind) {
        case FieldKind::Count:
            fields.set(info.id, integer_value(value, keyword, path));
            break;
        case FieldKind::Number:
            fields.set(info.id, number_value(value, value->text, keyword, info.example, path));
            break;
        case FieldKind::TimeSpan:
            fields.set(info.id, duration_value(value, value->text, keyword, path));
            break;
        case FieldKind::Text:
            fields.set(info.id, text_value(value, path));
            break;
        case FieldKind::Name:
            fields.set(info.id, name_value(value));
            break;
        case FieldKind::Word:
            if (const std::optional<std::string_view> word = detail::word_in(info, value->text)) {
                fields.set(info.id, Field<std::string>{
                                        Located<std::string>{std::string(*word), value->position}});
            } else {
                report(DiagnosticCode::UnknownValue, value->position, path,
                       "unknown " + std::string(info.example) + " " + quoted_excerpt(value->text),
                       suggestion_for(value->text, {info.words.begin(), info.words.end()}));
            }
            break;
        default:  // groups and lists have statements of their own
            break;
    }
}

// A backoff whose type or any value cannot be read is left out as a whole: one error, not a
// second one from the validator for the missing value.
std::optional<BackoffNode> TextReader::read_backoff(const LineParts& parts) {
    const Token* type = parts.find(Role::BackoffType);
    if (type == nullptr) {
        return std::nullopt;
    }
    const std::optional<BackoffType> parsed = parse_word<BackoffType>(type->text);
    if (!parsed) {
        std::string suggestion = did_you_mean(type->text, words_of<BackoffType>());
        std::string ignored;
        if (suggestion.empty() && parse_duration(type->text, ignored)) {
            suggestion = "for a fixed delay, write 'backoff fixed " + excerpt(type->text) + "'";
        }
        if (suggestion.empty()) {
            suggestion = "expected one of " + join_words(words_of<BackoffType>());
        }
        report(DiagnosticCode::UnknownValue, type->position, block_path("backoff.type"),
               "unknown backoff type " + quoted_excerpt(type->text), suggestion);
        return std::nullopt;
    }
    BackoffNode node;
    node.position = parts.position;
    node.type = Located<BackoffType>{*parsed, type->position};
    const std::string after = "'" + std::string(type->text) + "'";
    bool complete = true;
    const auto keep = [&complete](auto field) {
        complete = complete && field.has_value();
        return field;
    };
    for (const Token& token : parts.tokens) {
        switch (token.role) {
            case Role::Delay:
                node.delay =
                    keep(duration_value(&token, token.text, after, block_path("backoff.delay")));
                break;
            case Role::Initial:
                node.initial =
                    keep(duration_value(&token, token.text, after, block_path("backoff.initial")));
                break;
            case Role::Increment:
                node.increment = keep(duration_value(&token, token.text.substr(1), "'+'",
                                                     block_path("backoff.increment")));
                break;
            case Role::Multiplier:
                node.multiplier = keep(number_value(&token, token.text.substr(1), "the multiplier",
                                                    "x2", block_path("backoff.multiplier")));
                break;
            case Role::Max:
                node.max =
                    keep(duration_value(&token, token.text, "'max'", block_path("backoff.max")));
                break;
            default:
                break;
        }
    }
    if (!complete) {
        return std::nullopt;
    }
    return node;
}

std::optional<JitterNode> TextReader::read_jitter(const LineParts& parts) {
    JitterNode node;
    node.position = parts.position;
    if (const Token* bound = parts.find(Role::JitterBound)) {
        const Token* amount = parts.find(Role::JitterAmount);
        node.type = Located<JitterType>{JitterType::Bounded, bound->position};
        node.amount =
            duration_value(amount, amount ? amount->text : "", "'+-'", block_path("jitter.amount"));
        return node.amount ? std::optional<JitterNode>(node) : std::nullopt;
    }
    if (const Token* percent = parts.find(Role::JitterPercent)) {
        const std::string_view number = percent->text.substr(0, percent->text.size() - 1);
        node.type = Located<JitterType>{JitterType::Proportional, percent->position};
        if (!is_decimal_text(number)) {
            report(DiagnosticCode::WrongType, percent->position, block_path("jitter.factor"),
                   "a proportional jitter is a percentage such as 20%, got " +
                       quoted_excerpt(percent->text));
            return std::nullopt;
        }
        const std::string fraction = percent_as_fraction(number);
        node.factor = number_value(percent, fraction, "the jitter percentage", "20%",
                                   block_path("jitter.factor"));
        return node.factor ? std::optional<JitterNode>(node) : std::nullopt;
    }
    if (const Token* word = parts.find(Role::JitterWord)) {
        return read_jitter_word(parts, *word);
    }
    return std::nullopt;
}

std::optional<JitterNode> TextReader::read_jitter_word(const LineParts& parts, const Token& word) {
    const std::string field = block_path("jitter");
    if (const std::optional<JitterType> type = parse_bare_jitter_word(word.text)) {
        JitterNode node;
        node.position = parts.position;
        node.type = Located<JitterType>{*type, word.position};
        return node;
    }
    const std::optional<JitterType> needs_value = parse_word<JitterType>(word.text);
    if (needs_value == JitterType::Bounded) {
        report(DiagnosticCode::MissingField, word.position, field + ".amount",
               "'jitter bounded' needs an amount", "write 'jitter +-1s'");
        return std::nullopt;
    }
    if (needs_value == JitterType::Proportional) {
        report(DiagnosticCode::MissingField, word.position, field + ".factor",
               "'jitter proportional' needs a factor", "write a percentage: 'jitter 20%'");
        return std::nullopt;
    }
    std::string suggestion = did_you_mean(word.text, bare_jitter_words());
    std::string ignored;
    if (suggestion.empty() && parse_duration(word.text, ignored)) {
        suggestion = "for a bounded jitter, write 'jitter +-" + excerpt(word.text) + "'";
    } else if (suggestion.empty() && is_decimal_text(word.text)) {
        suggestion = "for a proportional jitter, write 'jitter " + excerpt(word.text) + "%'";
    } else if (suggestion.empty()) {
        suggestion = "expected one of " + join_words(bare_jitter_words()) +
                     ", a bound such as +-1s or a percentage such as 20%";
    }
    report(DiagnosticCode::UnknownValue, word.position, field,
           "unknown jitter " + quoted_excerpt(word.text), suggestion);
    return std::nullopt;
}

// The matchers of `retry on` / `never on`; one that cannot be read is reported and left out.
ListNode<Located<Matcher>> TextReader::read_matchers(const LineParts& parts, std::string_view key) {
    const std::string field = block_path(key);
    ListNode<Located<Matcher>> list;
    list.position = parts.position;
    SourcePosition start;  // of the current matcher's keyword
    // The vendor of the current native matcher, when readable (a plain pair rather than an
    // optional: g++ 12 warns falsely about an optional enum read in a later iteration).
    Vendor vendor = Vendor::Generic;
    bool vendor_known = false;
    const auto add = [&](std::optional<Matcher> matcher, SourcePosition position) {
        if (matcher) {
            list.items.push_back(Located<Matcher>{std::move(*matcher), position});
        }
    };
    if (parts.find(Role::EmptyList) != nullptr) {
        return list;
    }
    for (const Token& token : parts.tokens) {
        if (stopped_) {
            break;  // too many errors: the rest would not be reported anyway
        }
        switch (token.role) {
            case Role::MatcherStart:
                start = token.position;
                vendor_known = false;
                break;
            case Role::Category:
                if (token.text == kEmptyListWord) {
                    report_none_in_list(token, parts, field);
                } else {
                    add(read_category(token, field), token.position);
                }
                break;
            case Role::SqlState:
                add(Matcher::sqlstate(token.text), start);
                break;
            case Role::SqlStateClass:
                add(Matcher::sqlstate_class(token.text), start);
                break;
            case Role::Vendor:
                if (const std::optional<Vendor> parsed = parse_vendor(token.text)) {
                    vendor = *parsed;
                    vendor_known = true;
                } else {
                    report(DiagnosticCode::UnknownValue, token.position, field,
                           "unknown vendor " + quoted_excerpt(token.text),
                           suggestion_for(token.text, vendor_words()));
                }
                break;
            case Role::NativeCode: {
                const Field<std::int64_t> code =
                    integer_value(&token, "the native error code", field);
                if (vendor_known && code) {
                    add(Matcher::native(vendor, code->value), start);
                }
                break;
            }
            case Role::ErrorType:
                add(Matcher::error_type(token.text), start);
                break;
            case Role::Http:
                add(read_http(token, field), start);
                break;
            case Role::Grpc:
                if (const std::optional<GrpcStatus> status = parse_grpc_status(token.text)) {
                    add(Matcher::grpc_status(*status), start);
                } else {
                    report(DiagnosticCode::UnknownValue, token.position, field,
                           "unknown gRPC status " + quoted_excerpt(token.text),
                           suggestion_for(token.text,
                                          std::vector<std::string_view>(kGrpcStatusNames.begin(),
                                                                        kGrpcStatusNames.end())));
                }
                break;
            case Role::Message:
                if (Field<std::string> text = text_value(&token, field)) {
                    add(Matcher::message(text->value), start);
                }
                break;
            default:
                break;
        }
    }
    return list;
}

// A category word, or `transient` for every category retryable by default.
std::optional<Matcher> TextReader::read_category(const Token& token, const std::string& field) {
    if (token.text == kTransientGroupName) {
        return Matcher::transient();
    }
    if (const std::optional<ErrorCategory> category = parse_category(token.text)) {
        return Matcher::of_category(*category);
    }
    std::string suggestion = did_you_mean(token.text, matcher_words());
    if (suggestion.empty()) {
        suggestion =
            "expected a category such as deadlock or transient (docs/categories.md), or a matcher "
            "such as sqlstate 40001, native mysql 1213, error io.timeout, http 503, "
            "grpc UNAVAILABLE or message \"text\"";
    }
    report(DiagnosticCode::UnknownValue, token.position, field,
           "unknown error category " + quoted_excerpt(token.text), suggestion);
    return std::nullopt;
}

// `503` (a status) or `5xx` (a class of a hundred statuses); ranges are the validator's.
std::optional<Matcher> TextReader::read_http(const Token& token, const std::string& field) {
    const std::string_view text = token.text;
    const bool is_class = text.size() == 3 && text[0] >= '1' && text[0] <= '9' &&
                          (text[1] == 'x' || text[1] == 'X') && (text[2] == 'x' || text[2] == 'X');
    if (is_class) {
        return Matcher::http_class(text[0] - '0');
    }
    if (!is_integer_text(text)) {
        report(DiagnosticCode::InvalidValue, token.position, field,
               "expected an HTTP status such as 503 or a class such as 5xx, got " +
                   quoted_excerpt(text));
        return std::nullopt;
    }
    const Field<std::int64_t> status = integer_value(&token, "the HTTP status", field);
    if (!status) {
        return std::nullopt;
    }
    if (status->value < std::numeric_limits<int>::min() ||
        status->value > std::numeric_limits<int>::max()) {
        report(DiagnosticCode::OutOfRange, token.position, field,
               "HTTP status " + excerpt(text) + " is out of range");
        return std::nullopt;
    }
    return Matcher::http_status(static_cast<int>(status->value));
}

ListNode<Located<std::string>> TextReader::read_predicates(const LineParts& parts) {
    ListNode<Located<std::string>> list;
    list.position = parts.position;
    for (const Token& token : parts.tokens) {
        if (token.role != Role::Predicate) {
            continue;
        }
        if (token.text == kEmptyListWord) {
            report_none_in_list(token, parts, block_path("retry_if"));
        } else {
            list.items.push_back(Located<std::string>{std::string(token.text), token.position});
        }
    }
    return list;
}

// `none` among the items of a list: alone it states the empty list, so it can be no item
// (neither a category, which it is not, nor a predicate name, which it could be in YAML).
void TextReader::report_none_in_list(const Token& token, const LineParts& parts,
                                     const std::string& field) {
    const std::string statement(spelling_of(parts));
    const bool predicates = parts.statement == Statement::RetryIf;
    report(predicates ? DiagnosticCode::InvalidName : DiagnosticCode::UnknownValue, token.position,
           field,
           "'none' cannot be " + std::string(predicates ? "a predicate name" : "a matcher") +
               " in a list: '" + statement + " none' alone states an empty list",
           predicates ? "remove 'none' from the list, or give the predicate another name"
                      : "remove 'none' from the list, or write '" + statement +
                            " none' alone to state that the list is empty");
}

// `routes none` and `route` lines in one block contradict each other: the first one given is
// kept and the later one reported. Returns whether this statement is the later one.
bool TextReader::route_conflicts(const LineParts& parts) {
    OpenBlock& block = *block_;
    const std::uint32_t line = parts.position.line;
    if (parts.statement == Statement::RoutesNone && block.first_route_line != 0) {
        report(DiagnosticCode::ConflictingFields, parts.position, block_path("routes"),
               "'routes none' contradicts the route given at line " +
                   std::to_string(block.first_route_line) +
                   ": a policy has routes or 'routes none', not both",
               "remove 'routes none' or the route lines; the routes are used");
        return true;
    }
    if (parts.statement == Statement::Route && block.routes_none_line != 0) {
        report(DiagnosticCode::ConflictingFields, parts.position, block_path("routes"),
               "a route contradicts 'routes none' given at line " +
                   std::to_string(block.routes_none_line) +
                   ": a policy has routes or 'routes none', not both",
               "remove 'routes none' or the route lines; 'routes none' is used");
        return true;
    }
    if (parts.statement == Statement::RoutesNone) {
        block.routes_none_line = line;
    } else if (block.first_route_line == 0) {
        block.first_route_line = line;
    }
    return false;
}

// Left out as a whole when a value cannot be read.
std::optional<BudgetNode> TextReader::read_budget(const LineParts& parts) {
    BudgetNode node;
    node.position = parts.position;
    node.max_tokens =
        integer_value(parts.find(Role::Count), "the token count", block_path("budget.max_tokens"));
    const Token* ratio = parts.find(Role::Ratio);
    node.token_ratio = number_value(ratio, ratio ? ratio->text : "", "the token ratio", "0.1",
                                    block_path("budget.token_ratio"));
    if (!node.max_tokens || !node.token_ratio) {
        return std::nullopt;
    }
    return node;
}

// Left out as a whole when a value cannot be read.
std::optional<RouteNode> TextReader::read_route(const LineParts& parts) {
    RouteNode node;
    node.position = parts.position;
    const Token* limit = parts.find(Role::Delay);
    node.up_to = duration_value(limit, limit ? limit->text : "", "'up to'", block_path("routes"));
    node.target = text_value(parts.find(Role::Target), block_path("routes"));
    if (!node.up_to || !node.target) {
        return std::nullopt;
    }
    return node;
}

// ---- Values ------------------------------------------------------------------------------------

// Counts, versions and codes: [-]digits, stored wide; ranges are the validator's.
Field<std::int64_t> TextReader::integer_value(const Token* token, std::string_view what,
                                              const std::string& field) {
    if (token == nullptr) {
        return std::nullopt;
    }
    const std::string_view text = token->text;
    if (!is_integer_text(text)) {
        std::string suggestion;
        if (is_decimal_text(text)) {
            suggestion = "counts are whole numbers, such as 3";
        }
        report(DiagnosticCode::WrongType, token->position, field,
               std::string(what) + " must be a whole number, got " + quoted_excerpt(text),
               suggestion);
        return std::nullopt;
    }
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size()) {
        report(DiagnosticCode::OutOfRange, token->position, field,
               std::string(what) + " is too large: " + excerpt(text));
        return std::nullopt;
    }
    return Located<std::int64_t>{value, token->position};
}

// Factors: [-]digits[.digits] in `number` (the token's text, or a form of it); messages quote
// the whole token.
Field<double> TextReader::number_value(const Token* token, std::string_view number,
                                       std::string_view what, std::string_view example,
                                       const std::string& field) {
    if (token == nullptr) {
        return std::nullopt;
    }
    bool out_of_range = false;
    if (const std::optional<double> value = decimal_value(number, out_of_range)) {
        return Located<double>{*value, token->position};
    }
    if (out_of_range) {
        report(DiagnosticCode::OutOfRange, token->position, field,
               std::string(what) + " is too large: " + excerpt(token->text));
    } else {
        report(DiagnosticCode::WrongType, token->position, field,
               std::string(what) + " must be a number such as " + std::string(example) + ", got " +
                   quoted_excerpt(token->text));
    }
    return std::nullopt;
}

// A percentage such as 50% (the token's text includes the `%`), or a fraction such as 0.5.
Field<double> TextReader::fraction_value(const Token* token, std::string_view what,
                                         std::string_view example, const std::string& field) {
    if (token == nullptr) {
        return std::nullopt;
    }
    if (!token->text.ends_with('%')) {
        return number_value(token, token->text, what, example, field);
    }
    const std::string_view number = token->text.substr(0, token->text.size() - 1);
    if (!is_decimal_text(number)) {
        report(DiagnosticCode::WrongType, token->position, field,
               std::string(what) + " is a percentage such as " + std::string(example) + ", got " +
                   quoted_excerpt(token->text));
        return std::nullopt;
    }
    return number_value(token, percent_as_fraction(number), what, example, field);
}

// A duration with its unit (the DSL has no bare milliseconds). `after` names what precedes the
// duration, for the message: "expected a duration such as 500ms after 'fixed', got '500'".
Field<Duration> TextReader::duration_value(const Token* token, std::string_view text,
                                           std::string_view after, const std::string& field) {
    if (token == nullptr) {
        return std::nullopt;
    }
    std::string error;
    if (const std::optional<Duration> duration = parse_duration(text, error)) {
        return Located<Duration>{*duration, token->position};
    }
    if (is_decimal_text(text) && text.front() != '-') {
        report(DiagnosticCode::InvalidDuration, token->position, field,
               "expected a duration such as " + excerpt(text) + "ms after " + std::string(after) +
                   ", got " + quoted_excerpt(text) +
                   ": a duration needs a unit (us, ms, s, m or h)",
               "write " + excerpt(text) + "ms");
        return std::nullopt;
    }
    if (!shows_unchanged(text)) {
        error = "expected a duration such as 250ms after " + std::string(after) + ", got " +
                quoted_excerpt(text);
    }
    report(DiagnosticCode::InvalidDuration, token->position, field, std::move(error));
    return std::nullopt;
}

// Quoted text (message, route target), which must be UTF-8 once its escapes are resolved.
Field<std::string> TextReader::text_value(const Token* token, const std::string& field) {
    if (token == nullptr || token->text.size() < 2) {
        return std::nullopt;
    }
    std::string text = unquoted(token->text);
    if (!is_valid_utf8(text)) {
        report(DiagnosticCode::InvalidValue, token->position, field,
               "the text " + quoted_excerpt(token->text) + " is not valid UTF-8");
        return std::nullopt;
    }
    return Located<std::string>{std::move(text), token->position};
}

Field<std::string> TextReader::name_value(const Token* token) {
    if (token == nullptr) {
        return std::nullopt;
    }
    return Located<std::string>{std::string(token->text), token->position};
}

}  // namespace rebound::dsl::text

namespace rebound::dsl {

ParseResult parse_text(std::string_view text, std::string_view file) {
    ParseResult result;
    result.document.file = std::string(file);
    text::TextReader reader(file, result);
    reader.read(text);
    return result;
}

}  // namespace rebound::dsl
