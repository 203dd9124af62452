// The reader of the text DSL (.rebound), shared by the source files that define its members.
// Private to rebound::dsl; parse_text (rebound/dsl/parse.hpp) is its only user.
//
// reader.cpp holds the lines, the structure (blocks, header order) and most statements;
// reader_resilience.cpp the statements of breaker blocks, `server delay` and `hedge`. reader.cpp
// says how a line is read and how errors are recovered from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/dsl/diagnostic.hpp"
#include "rebound/dsl/document.hpp"
#include "rebound/dsl/parse.hpp"
#include "rebound/dsl/source_position.hpp"
#include "rebound/duration.hpp"
#include "rebound/matcher.hpp"
#include "text/line_parts.hpp"

namespace rebound::dsl::text {

// What a block is. `Unknown` is the block of a misspelt header (`polcy p {`): its statements are
// checked where that is possible and then dropped.
enum class BlockKind : std::uint8_t { Defaults, Policy, Breaker, Unknown };

// A `defaults { }`, `policy NAME { }` or `breaker NAME { }` block being read. Its node is built
// here and put in the Document when the block ends, unless it is a duplicate (read for its
// diagnostics only).
struct OpenBlock {
    BlockKind kind = BlockKind::Policy;
    bool keep = true;
    std::uint32_t line = 0;  // of the header
    std::string label;       // "policy 'p'", "'defaults'", for messages
    std::string path;        // "policies.p", "defaults", for field paths
    PolicyNode policy;
    DefaultsNode defaults;
    BreakerNode breaker;
    std::map<std::string, std::uint32_t, std::less<>> given;  // statement -> first line
    std::uint32_t first_route_line = 0;                       // of the first `route`, 0 if none yet
    std::uint32_t routes_none_line = 0;                       // of `routes none`, 0 if not given

    PolicyFields& fields() { return kind == BlockKind::Defaults ? defaults.fields : policy.fields; }
    // Whether statements that stand in `place` are read in this block.
    bool reads(Place place) const {
        return kind == BlockKind::Breaker ? place == Place::BreakerBlock : place == Place::Block;
    }
};

// One of the first two top-level statements, for the `rebound` / `service` order check.
struct LeadingStatement {
    Statement statement;
    SourcePosition position;
    std::string word;
};

struct SyntaxFailure {
    std::string message;
    SourcePosition position;
};

class TextReader {
  public:
    TextReader(std::string_view file, ParseResult& result)
        : file_(file), result_(result), document_(result.document) {}

    void read(std::string_view source);

  private:
    // Lines.
    void read_line(std::string_view line, std::uint32_t number, std::size_t offset);
    std::optional<SyntaxFailure> parse_line(std::string_view line, std::uint32_t number,
                                            std::size_t offset, LineParts& parts);
    void place(const LineParts& parts, const std::optional<SyntaxFailure>& failure,
               std::string_view line);
    void read_statement(const LineParts& parts, bool failed, std::string_view line);

    // Structure.
    void note_top_level_statement(const LineParts& parts);
    void report_unknown_statement(const LineParts& parts);
    void open_block(const LineParts& parts, BlockKind kind);
    void open_breaker_block(const LineParts& parts);
    bool first_named(std::map<std::string, std::uint32_t, std::less<>>& lines, const Token& name,
                     std::string_view kind, const std::string& path);
    void report_misplaced(const LineParts& parts, Place where);
    void open_unknown_block(const LineParts& parts);
    void close_block();
    void report_unclosed_block(SourcePosition position, std::string_view suggestion);
    void check_header_order();
    bool first_given(std::optional<SourcePosition>& first, const LineParts& parts, bool failed,
                     std::string_view field);

    // Top-level statements.
    void read_rebound(const LineParts& parts, bool failed);
    void read_service(const LineParts& parts, bool failed);
    void read_handler(const LineParts& parts, bool failed);
    void read_default(const LineParts& parts, bool failed);

    // Block statements.
    bool first_in_block(const LineParts& parts);
    void read_block_statement(const LineParts& parts);
    void read_breaker_statement(const LineParts& parts);
    std::optional<ServerDelayNode> read_server_delay(const LineParts& parts);
    std::optional<HedgeNode> read_hedge(const LineParts& parts);
    bool read_hedge_delay(const LineParts& parts, HedgeNode& node);
    bool read_hedge_range(const Token& range, HedgeNode& node);
    std::optional<BackoffNode> read_backoff(const LineParts& parts);
    std::optional<JitterNode> read_jitter(const LineParts& parts);
    std::optional<JitterNode> read_jitter_word(const LineParts& parts, const Token& word);
    ListNode<Located<Matcher>> read_matchers(const LineParts& parts, std::string_view key);
    std::optional<Matcher> read_category(const Token& token, const std::string& field);
    void report_none_in_list(const Token& token, const LineParts& parts, const std::string& field);
    bool route_conflicts(const LineParts& parts);
    std::optional<Matcher> read_http(const Token& token, const std::string& field);
    ListNode<Located<std::string>> read_predicates(const LineParts& parts);
    void read_call_graph_parts(const LineParts& parts, const std::string& field, HandlerNode& node);
    std::optional<BudgetNode> read_budget(const LineParts& parts);
    std::optional<RouteNode> read_route(const LineParts& parts);

    // Values; each reports what it cannot read and returns nullopt.
    Field<std::int64_t> integer_value(const Token* token, std::string_view what,
                                      const std::string& field);
    Field<double> number_value(const Token* token, std::string_view number, std::string_view what,
                               std::string_view example, const std::string& field);
    Field<double> fraction_value(const Token* token, std::string_view what,
                                 std::string_view example, const std::string& field);
    Field<Duration> duration_value(const Token* token, std::string_view text,
                                   std::string_view after, const std::string& field);
    Field<std::string> text_value(const Token* token, const std::string& field);
    static Field<std::string> name_value(const Token* token);
    void read_scalar_statement(const LineParts& parts, PolicyFields& fields);

    std::string block_path(std::string_view key) const {
        return block_->path + "." + std::string(key);
    }
    void report(DiagnosticCode code, SourcePosition position, std::string field,
                std::string message, std::string suggestion = {});

    std::string file_;
    ParseResult& result_;
    Document& document_;
    std::optional<OpenBlock> block_;
    std::vector<LeadingStatement> leading_;  // the first two top-level statements
    std::optional<SourcePosition> rebound_given_;
    std::optional<SourcePosition> service_given_;
    std::optional<SourcePosition> defaults_given_;
    std::optional<SourcePosition> default_given_;
    std::map<std::string, std::uint32_t, std::less<>> policy_lines_;
    std::map<std::string, std::uint32_t, std::less<>> handler_lines_;
    std::map<std::string, std::uint32_t, std::less<>> breaker_lines_;
    SourcePosition end_of_text_{1, 1};  // just after the last non-blank character
    std::size_t errors_ = 0;
    bool stopped_ = false;
};

}  // namespace rebound::dsl::text
