// The grammar of the text DSL (.rebound files), for PEGTL 3.2.7. Private to rebound::dsl: PEGTL
// never appears in a public header.
//
// Shape. The DSL is line-oriented: every statement ends at the end of its line. So `grammar` is
// the grammar of ONE line, and the reader (reader.cpp) applies it to each line in turn.
// That is what makes error recovery simple and certain: a syntax error ends its own line only,
// and the next line starts afresh, so one pass reports every broken line of a file.
//
// Division of work. The grammar checks the shape of a statement and marks its parts (the rules
// that have an action in the reader); the reader decides the rest: which statements may stand
// where (inside a `policy` block or at the top level), the order of `rebound` and `service`,
// duplicates, and the meaning of every value. Values are lexed as plain words (`word`): the
// grammar says where a duration, a number or a category goes, and the reader checks the word
// with the shared helpers of syntax.hpp, so that a wrong value gets a precise diagnostic (a
// missing unit, a did-you-mean) instead of a generic syntax error.
//
// Errors. Once a statement's keyword has matched, every further part is wrapped in must<>, and
// every rule under a must<> has an error_message in grammar_errors.hpp, in the user's words
// ("expected a duration such as 250ms after 'fixed'"); the reader appends what it found instead
// ("got '500'"). `control` (also in grammar_errors.hpp) refuses to compile a must<> whose rule
// has no message, and raises only under must<> (a rule with a message that fails elsewhere
// simply fails). This file holds the rules only.
//
// Actions. PEGTL applies an action as soon as its rule matches, even if an enclosing rule fails
// later. So rules with actions are placed where no backtracking can follow their match: after
// a keyword (the rest is under must<>), or as whole alternatives of a sor<>.
//
// Bounded work: no rule is recursive, so the stack depth does not depend on the input, and
// every repetition consumes input (a test asserts analyze<grammar>() == 0).
#pragma once

#include <tao/pegtl.hpp>

namespace rebound::dsl::text {

namespace pegtl = tao::pegtl;

// The rules, their actions and control are lower_case structs, PEGTL's own convention (see
// below), not the project's CamelCase for classes: readability-identifier-naming is off for them
// (here, in grammar_errors.hpp and in actions.hpp), and on for the reader's own classes.
// NOLINTBEGIN(readability-identifier-naming)

// Rules are lower_snake_case structs, as in PEGTL's own grammars (contrib/json.hpp); each is one
// concept of the language, and a distinct type so that it can carry its own action and message.

// ---- Lexical rules ---------------------------------------------------------------------------

struct blanks : pegtl::star<pegtl::blank> {};
struct separator : pegtl::plus<pegtl::blank> {};
// `#` to the end of the line (the reader gives the grammar one line, so to the input's end).
struct comment : pegtl::seq<pegtl::one<'#'>, pegtl::star<pegtl::any>> {};
// Where a statement ends: blanks, an optional comment, the end of the line.
struct line_end : pegtl::seq<blanks, pegtl::opt<comment>, pegtl::eof> {};
// The end of the statement that starts with `Keyword`: one type per statement, for its message.
template <typename Keyword>
struct end_of : line_end {};

// Names (policy, service, predicate and error-type names): [A-Za-z_][A-Za-z0-9_.-]*
struct name_first : pegtl::sor<pegtl::alpha, pegtl::one<'_'>> {};
struct name_char : pegtl::sor<pegtl::alnum, pegtl::one<'_', '.', '-'>> {};
struct name : pegtl::seq<name_first, pegtl::star<name_char>> {};

// A keyword is a whole word: `attempts` does not start `attempts_total`.
template <typename Spelling>
struct keyword : pegtl::seq<Spelling, pegtl::not_at<name_char>> {};

struct arrow : pegtl::string<'-', '>'> {};
// A value word: any bytes up to a blank or a character of the DSL's own punctuation. Durations,
// numbers, codes and words are all lexed as words; the reader checks what each must be.
struct word_char
    : pegtl::seq<pegtl::not_at<arrow>, pegtl::not_one<' ', '\t', ',', '#', '"', '{', '}', '%'>> {};
struct word : pegtl::plus<word_char> {};

struct list_comma : pegtl::seq<blanks, pegtl::one<','>, blanks> {};
struct opening_brace : pegtl::one<'{'> {};
struct closing_brace : pegtl::one<'}'> {};

// Double-quoted text with the escapes the emitters write: \" \\ \n \t \r \xNN. Raw bytes other
// than `"` and `\` are taken as they are.
struct escape_code : pegtl::sor<pegtl::one<'"', '\\', 'n', 't', 'r'>,
                                pegtl::seq<pegtl::one<'x'>, pegtl::xdigit, pegtl::xdigit>> {};
struct escape_sequence : pegtl::seq<pegtl::one<'\\'>, pegtl::must<escape_code>> {};
struct text_char : pegtl::sor<escape_sequence, pegtl::not_one<'"', '\\'>> {};
struct closing_quote : pegtl::one<'"'> {};
struct quoted_text
    : pegtl::seq<pegtl::one<'"'>, pegtl::star<text_char>, pegtl::must<closing_quote>> {};

// ---- Keywords --------------------------------------------------------------------------------

struct rebound_keyword : keyword<TAO_PEGTL_STRING("rebound")> {};
struct service_keyword : keyword<TAO_PEGTL_STRING("service")> {};
struct defaults_keyword : keyword<TAO_PEGTL_STRING("defaults")> {};
struct policy_keyword : keyword<TAO_PEGTL_STRING("policy")> {};
struct extends_keyword : keyword<TAO_PEGTL_STRING("extends")> {};
struct handler_keyword : keyword<TAO_PEGTL_STRING("handler")> {};
struct default_keyword : keyword<TAO_PEGTL_STRING("default")> {};
struct uses_keyword : keyword<TAO_PEGTL_STRING("uses")> {};
struct not_keyword : keyword<TAO_PEGTL_STRING("not")> {};
struct handler_calls_keyword : keyword<TAO_PEGTL_STRING("calls")> {};  // on handler lines
struct redeliveries_keyword : keyword<TAO_PEGTL_STRING("redeliveries")> {};
struct backoff_keyword : keyword<TAO_PEGTL_STRING("backoff")> {};
struct fixed_keyword : keyword<TAO_PEGTL_STRING("fixed")> {};
struct linear_keyword : keyword<TAO_PEGTL_STRING("linear")> {};
struct exponential_keyword : keyword<TAO_PEGTL_STRING("exponential")> {};
struct none_keyword : keyword<TAO_PEGTL_STRING("none")> {};
struct max_keyword : keyword<TAO_PEGTL_STRING("max")> {};
struct jitter_keyword : keyword<TAO_PEGTL_STRING("jitter")> {};
struct retry_keyword : keyword<TAO_PEGTL_STRING("retry")> {};
struct retry_on_keyword : keyword<TAO_PEGTL_STRING("on")> {};  // the `on` of `retry on`
struct retry_if_keyword : keyword<TAO_PEGTL_STRING("if")> {};
struct never_keyword : keyword<TAO_PEGTL_STRING("never")> {};
struct never_on_keyword : keyword<TAO_PEGTL_STRING("on")> {};  // the `on` of `never on`
struct on_keyword : keyword<TAO_PEGTL_STRING("on")> {};        // starts `on exhausted`
struct exhausted_keyword : keyword<TAO_PEGTL_STRING("exhausted")> {};
struct budget_keyword : keyword<TAO_PEGTL_STRING("budget")> {};
struct tokens_keyword : keyword<TAO_PEGTL_STRING("tokens")> {};
struct ratio_keyword : keyword<TAO_PEGTL_STRING("ratio")> {};
struct route_keyword : keyword<TAO_PEGTL_STRING("route")> {};
struct routes_keyword : keyword<TAO_PEGTL_STRING("routes")> {};  // only in `routes none`
struct up_keyword : keyword<TAO_PEGTL_STRING("up")> {};
struct to_keyword : keyword<TAO_PEGTL_STRING("to")> {};
struct sqlstate_keyword : keyword<TAO_PEGTL_STRING("sqlstate")> {};
struct class_keyword : keyword<TAO_PEGTL_STRING("class")> {};
struct native_keyword : keyword<TAO_PEGTL_STRING("native")> {};
struct error_keyword : keyword<TAO_PEGTL_STRING("error")> {};
struct http_keyword : keyword<TAO_PEGTL_STRING("http")> {};
struct grpc_keyword : keyword<TAO_PEGTL_STRING("grpc")> {};
struct message_keyword : keyword<TAO_PEGTL_STRING("message")> {};
struct server_keyword : keyword<TAO_PEGTL_STRING("server")> {};
struct delay_keyword : keyword<TAO_PEGTL_STRING("delay")> {};
struct cap_keyword : keyword<TAO_PEGTL_STRING("cap")> {};
struct over_keyword : keyword<TAO_PEGTL_STRING("over")> {};
struct spread_keyword : keyword<TAO_PEGTL_STRING("spread")> {};
struct breaker_keyword : keyword<TAO_PEGTL_STRING("breaker")> {};
struct trip_keyword : keyword<TAO_PEGTL_STRING("trip")> {};
struct of_keyword : keyword<TAO_PEGTL_STRING("of")> {};
struct in_keyword : keyword<TAO_PEGTL_STRING("in")> {};
struct after_keyword : keyword<TAO_PEGTL_STRING("after")> {};
struct consecutive_keyword : keyword<TAO_PEGTL_STRING("consecutive")> {};
struct open_keyword : keyword<TAO_PEGTL_STRING("open")> {};  // starts `open D [max D]`
struct half_keyword : keyword<TAO_PEGTL_STRING("half")> {};
struct half_open_keyword : keyword<TAO_PEGTL_STRING("open")> {};  // the `open` of `half open`
struct slow_keyword : keyword<TAO_PEGTL_STRING("slow")> {};
struct call_keyword : keyword<TAO_PEGTL_STRING("call")> {};
// `calls` (or `call`, for `half open 1 call`).
struct calls_keyword
    : pegtl::sor<keyword<TAO_PEGTL_STRING("calls")>, keyword<TAO_PEGTL_STRING("call")>> {};
struct failures_keyword : keyword<TAO_PEGTL_STRING("failures")> {};  // starts `failures M, ...`
// The `failures` that ends `trip after N consecutive failures`.
struct trip_failures_keyword : keyword<TAO_PEGTL_STRING("failures")> {};
struct hedge_keyword : keyword<TAO_PEGTL_STRING("hedge")> {};
struct within_keyword : keyword<TAO_PEGTL_STRING("within")> {};
struct window_keyword : keyword<TAO_PEGTL_STRING("window")> {};
struct warmup_keyword : keyword<TAO_PEGTL_STRING("warmup")> {};
struct extra_keyword : keyword<TAO_PEGTL_STRING("extra")> {};
struct burst_keyword : keyword<TAO_PEGTL_STRING("burst")> {};
struct hedge_on_keyword : keyword<TAO_PEGTL_STRING("on")> {};  // the `on` of `on failure`
struct failure_keyword : keyword<TAO_PEGTL_STRING("failure")> {};

// ---- File header: `rebound 1`, `service NAME` ---------------------------------------------------

struct format_version : word {};
struct version_argument : pegtl::seq<separator, format_version> {};
struct rebound_statement : pegtl::seq<rebound_keyword, pegtl::must<version_argument>,
                                      pegtl::must<end_of<rebound_keyword>>> {};

struct service_name : name {};
struct service_argument : pegtl::seq<separator, service_name> {};
struct service_statement : pegtl::seq<service_keyword, pegtl::must<service_argument>,
                                      pegtl::must<end_of<service_keyword>>> {};

// ---- Blocks: `defaults {`, `policy NAME [extends PARENT] {`, `}` --------------------------------

struct parent_name : name {};
struct parent_argument : pegtl::seq<separator, parent_name> {};
// Parsed after `defaults` too, so that the reader can say that defaults cannot extend.
struct extends_clause : pegtl::seq<separator, extends_keyword, pegtl::must<parent_argument>> {};
// `policy p {}`: an empty block on one line.
struct inline_block_end : pegtl::seq<blanks, closing_brace> {};

struct defaults_opening : pegtl::seq<blanks, opening_brace> {};
struct defaults_statement
    : pegtl::seq<defaults_keyword, pegtl::opt<extends_clause>, pegtl::must<defaults_opening>,
                 pegtl::opt<inline_block_end>, pegtl::must<end_of<defaults_keyword>>> {};

struct policy_name : name {};
struct policy_name_argument : pegtl::seq<separator, policy_name> {};
struct policy_opening : pegtl::seq<blanks, opening_brace> {};
struct policy_statement
    : pegtl::seq<policy_keyword, pegtl::must<policy_name_argument>, pegtl::opt<extends_clause>,
                 pegtl::must<policy_opening>, pegtl::opt<inline_block_end>,
                 pegtl::must<end_of<policy_keyword>>> {};

struct block_end_brace : pegtl::one<'}'> {};
struct block_end : pegtl::seq<block_end_brace, pegtl::must<end_of<block_end_brace>>> {};

// ---- Bindings: `default uses POLICY` and
//   handler KEY uses POLICY [[not] idempotent] [calls NAME, NAME...] [redeliveries N]

// A handler name or a prefix pattern `prefix.*` (the validator checks where a `*` may stand).
struct handler_key : pegtl::seq<name_first, pegtl::star<pegtl::sor<name_char, pegtl::one<'*'>>>> {};
struct handler_key_argument : pegtl::seq<separator, handler_key> {};
struct handler_uses : pegtl::seq<separator, uses_keyword> {};
struct bound_policy : name {};
struct bound_policy_argument : pegtl::seq<separator, bound_policy> {};
// `idempotent`, or a misspelling of it that the reader reports; `not` before it states false.
// Not `calls` or `redeliveries`, which start the clauses after it.
struct handler_option
    : pegtl::seq<pegtl::not_at<handler_calls_keyword>, pegtl::not_at<redeliveries_keyword>, word> {
};
struct handler_negation : pegtl::seq<not_keyword, separator> {};
// `calls a.b, c.d`: the handlers this one's work calls (docs/resilience.md).
struct callee_name : name {};
struct callee_list
    : pegtl::seq<separator, callee_name, pegtl::star<list_comma, pegtl::must<callee_name>>> {};
struct calls_clause : pegtl::seq<separator, handler_calls_keyword, pegtl::must<callee_list>> {};
// `redeliveries 5`: how many more times a broker delivers a failed trigger.
struct redeliveries_count : word {};
struct redeliveries_argument : pegtl::seq<separator, redeliveries_count> {};
struct redeliveries_clause
    : pegtl::seq<separator, redeliveries_keyword, pegtl::must<redeliveries_argument>> {};
struct handler_statement
    : pegtl::seq<handler_keyword, pegtl::must<handler_key_argument>, pegtl::must<handler_uses>,
                 pegtl::must<bound_policy_argument>,
                 pegtl::opt<separator, pegtl::opt<handler_negation>, handler_option>,
                 pegtl::opt<calls_clause>, pegtl::opt<redeliveries_clause>,
                 pegtl::must<end_of<handler_keyword>>> {};

struct default_uses : pegtl::seq<separator, uses_keyword> {};
struct default_statement
    : pegtl::seq<default_keyword, pegtl::must<default_uses>, pegtl::must<bound_policy_argument>,
                 pegtl::must<end_of<default_keyword>>> {};

// ---- Backoff -----------------------------------------------------------------------------------
//   backoff fixed D | backoff linear D +D [max D] | backoff none
//   backoff exponential D [xF] [max D]

struct backoff_delay : word {};
struct fixed_delay_argument : pegtl::seq<separator, backoff_delay> {};
struct backoff_fixed : pegtl::seq<fixed_keyword, pegtl::must<fixed_delay_argument>> {};

struct backoff_initial : word {};
struct backoff_max : word {};
struct max_argument : pegtl::seq<separator, backoff_max> {};
struct max_clause : pegtl::seq<separator, max_keyword, pegtl::must<max_argument>> {};

// `+2s`: the increment is written with its sign, the text includes the `+`.
struct backoff_increment : pegtl::seq<pegtl::one<'+'>, word> {};
struct linear_initial_argument : pegtl::seq<separator, backoff_initial> {};
struct linear_increment_argument : pegtl::seq<separator, backoff_increment> {};
struct backoff_linear : pegtl::seq<linear_keyword, pegtl::must<linear_initial_argument>,
                                   pegtl::must<linear_increment_argument>, pegtl::opt<max_clause>> {
};

// `x2`: the multiplier is written after an `x`, the text includes the `x`. Optional: the
// spec's default multiplier (2.0) applies without it, as in YAML.
struct backoff_multiplier : pegtl::seq<pegtl::one<'x'>, word> {};
struct multiplier_clause : pegtl::seq<separator, backoff_multiplier> {};
struct exponential_initial_argument : pegtl::seq<separator, backoff_initial> {};
struct backoff_exponential
    : pegtl::seq<exponential_keyword, pegtl::must<exponential_initial_argument>,
                 pegtl::opt<multiplier_clause>, pegtl::opt<max_clause>> {};

struct backoff_none : none_keyword {};

// Any other word where the type goes: the reader reports it (with a did-you-mean); the rest of
// the line is skipped, since its shape depends on the type the user meant.
struct backoff_unknown_type : word {};
struct backoff_unknown : pegtl::seq<backoff_unknown_type, pegtl::star<pegtl::any>> {};

struct backoff_form
    : pegtl::seq<separator, pegtl::sor<backoff_fixed, backoff_linear, backoff_exponential,
                                       backoff_none, backoff_unknown>> {};
struct backoff_statement
    : pegtl::seq<backoff_keyword, pegtl::must<backoff_form>, pegtl::must<end_of<backoff_keyword>>> {
};

// ---- Jitter: `jitter WORD`, `jitter +-D` (bounded), `jitter N%` (proportional) ------------------

struct bounded_sign : pegtl::string<'+', '-'> {};
struct bounded_amount : word {};
struct jitter_bounded : pegtl::seq<bounded_sign, pegtl::must<bounded_amount>> {};
struct jitter_percent : pegtl::seq<word, pegtl::one<'%'>> {};
struct jitter_word : word {};
struct jitter_form
    : pegtl::seq<separator, pegtl::sor<jitter_bounded, jitter_percent, jitter_word>> {};
struct jitter_statement
    : pegtl::seq<jitter_keyword, pegtl::must<jitter_form>, pegtl::must<end_of<jitter_keyword>>> {};

// ---- Scalar fields: `attempts N`, `deadline D` and the other top-level fields of one value ------
// One statement for every top-level scalar field of the field table (rebound/policy_field.hpp)
// whose DSL keyword is one word: the keyword is any name, and its action accepts it only when it
// is such a field's DSL keyword (and records which one), so a new field needs no rule here. The
// argument's message names the field and its kind of value (control<> below). It is tried after
// every statement of its own (`breaker NAME` may also open a block).

struct scalar_field_keyword : name {};
// Quoted text is a value only after a Text field's keyword: the action of scalar_field_is_text
// fails the rule for any other field, whose argument is a word.
struct scalar_field_is_text : pegtl::success {};
struct scalar_field_text : pegtl::seq<scalar_field_is_text, quoted_text> {};
struct scalar_field_value : pegtl::sor<scalar_field_text, word> {};
struct scalar_field_argument : pegtl::seq<separator, scalar_field_value> {};
struct scalar_field_statement : pegtl::seq<scalar_field_keyword, pegtl::must<scalar_field_argument>,
                                           pegtl::must<end_of<scalar_field_keyword>>> {};

// ---- Matchers ----------------------------------------------------------------------------------
//   CATEGORY | sqlstate CODE | sqlstate class CC | native VENDOR CODE | error TYPE | http 503 |
//   http 5xx | grpc UNAVAILABLE | message "text"

struct sqlstate_code : word {};
struct sqlstate_class_code : word {};
struct sqlstate_class_argument : pegtl::seq<separator, sqlstate_class_code> {};
struct sqlstate_class_clause : pegtl::seq<class_keyword, pegtl::must<sqlstate_class_argument>> {};
struct sqlstate_argument : pegtl::seq<separator, pegtl::sor<sqlstate_class_clause, sqlstate_code>> {
};
struct sqlstate_matcher : pegtl::seq<sqlstate_keyword, pegtl::must<sqlstate_argument>> {};

struct native_vendor : word {};
struct native_code : word {};
struct native_vendor_argument : pegtl::seq<separator, native_vendor> {};
struct native_code_argument : pegtl::seq<separator, native_code> {};
struct native_matcher : pegtl::seq<native_keyword, pegtl::must<native_vendor_argument>,
                                   pegtl::must<native_code_argument>> {};

struct error_type_name : name {};
struct error_type_argument : pegtl::seq<separator, error_type_name> {};
struct error_matcher : pegtl::seq<error_keyword, pegtl::must<error_type_argument>> {};

struct http_code : word {};
struct http_argument : pegtl::seq<separator, http_code> {};
struct http_matcher : pegtl::seq<http_keyword, pegtl::must<http_argument>> {};

struct grpc_code : word {};
struct grpc_argument : pegtl::seq<separator, grpc_code> {};
struct grpc_matcher : pegtl::seq<grpc_keyword, pegtl::must<grpc_argument>> {};

struct message_text : quoted_text {};
struct message_argument : pegtl::seq<separator, message_text> {};
struct message_matcher : pegtl::seq<message_keyword, pegtl::must<message_argument>> {};

// A category word (or `transient`), checked by the reader; last, after the matcher keywords.
struct category_word : word {};

struct matcher : pegtl::sor<sqlstate_matcher, native_matcher, error_matcher, http_matcher,
                            grpc_matcher, message_matcher, category_word> {};
struct matcher_list : pegtl::seq<matcher, pegtl::star<list_comma, pegtl::must<matcher>>> {};

// ---- Empty lists: `retry on none`, `never on none`, `retry if none`, `routes none` -------------
// `none` alone states a present, empty list: it overrides an inherited non-empty one, which
// leaving the statement out cannot do. Followed by anything but the end of the line, `none` is
// read as a list item instead, and the reader reports that it cannot be one.

struct empty_list : pegtl::seq<none_keyword, pegtl::at<line_end>> {};

// ---- Rules: `retry on M, ...`, `never on M, ...`, `retry if NAME, ...` ------------------------

struct retry_on_matchers : pegtl::seq<separator, pegtl::sor<empty_list, matcher_list>> {};
struct retry_on_clause : pegtl::seq<retry_on_keyword, pegtl::must<retry_on_matchers>> {};

struct predicate_name : name {};
struct predicate_list
    : pegtl::seq<predicate_name, pegtl::star<list_comma, pegtl::must<predicate_name>>> {};
struct retry_if_predicates : pegtl::seq<separator, pegtl::sor<empty_list, predicate_list>> {};
struct retry_if_clause : pegtl::seq<retry_if_keyword, pegtl::must<retry_if_predicates>> {};

struct retry_mode : pegtl::seq<separator, pegtl::sor<retry_on_clause, retry_if_clause>> {};
struct retry_statement
    : pegtl::seq<retry_keyword, pegtl::must<retry_mode>, pegtl::must<end_of<retry_keyword>>> {};

struct never_on : pegtl::seq<separator, never_on_keyword> {};
struct never_on_matchers : pegtl::seq<separator, pegtl::sor<empty_list, matcher_list>> {};
struct never_statement
    : pegtl::seq<never_keyword, pegtl::must<never_on>, pegtl::must<never_on_matchers>,
                 pegtl::must<end_of<never_keyword>>> {};

// ---- `on exhausted fail|dead_letter` ------------------------------------------------------------

struct exhausted_clause : pegtl::seq<separator, exhausted_keyword> {};
struct exhausted_action : word {};
struct exhausted_argument : pegtl::seq<separator, exhausted_action> {};
struct on_exhausted_statement
    : pegtl::seq<on_keyword, pegtl::must<exhausted_clause>, pegtl::must<exhausted_argument>,
                 pegtl::must<end_of<on_keyword>>> {};

// ---- `budget tokens N ratio F` -----------------------------------------------------------------

struct budget_tokens : word {};
struct tokens_argument : pegtl::seq<separator, budget_tokens> {};
struct tokens_clause : pegtl::seq<separator, tokens_keyword, pegtl::must<tokens_argument>> {};
struct budget_ratio : word {};
struct ratio_argument : pegtl::seq<separator, budget_ratio> {};
struct ratio_clause : pegtl::seq<separator, ratio_keyword, pegtl::must<ratio_argument>> {};
struct budget_statement
    : pegtl::seq<budget_keyword, pegtl::must<tokens_clause>, pegtl::must<ratio_clause>,
                 pegtl::must<end_of<budget_keyword>>> {};

// ---- `route up to D -> "target"` ----------------------------------------------------------------

struct up_to : pegtl::seq<separator, up_keyword, separator, to_keyword> {};
struct route_limit : word {};
struct route_limit_argument : pegtl::seq<separator, route_limit> {};
struct route_arrow : pegtl::seq<blanks, arrow> {};
struct route_target : quoted_text {};
struct route_target_argument : pegtl::seq<blanks, route_target> {};
struct route_statement
    : pegtl::seq<route_keyword, pegtl::must<up_to>, pegtl::must<route_limit_argument>,
                 pegtl::must<route_arrow>, pegtl::must<route_target_argument>,
                 pegtl::must<end_of<route_keyword>>> {};

// `routes none`: the policy has no routes (routes themselves are `route` lines).
struct routes_none : pegtl::seq<separator, empty_list> {};
struct routes_statement
    : pegtl::seq<routes_keyword, pegtl::must<routes_none>, pegtl::must<end_of<routes_keyword>>> {};

// ---- `server delay max [cap D] [over cap stop|cap|ignore] [spread N%]`, `server delay ignore`
// ---- The parts after the use are optional, in this order (docs/resilience.md).

struct server_delay_use : word {};
struct server_delay_use_argument : pegtl::seq<separator, server_delay_use> {};
struct server_delay_words : pegtl::seq<separator, delay_keyword> {};
struct server_delay_cap : word {};
struct server_delay_cap_argument : pegtl::seq<separator, server_delay_cap> {};
struct server_delay_cap_clause
    : pegtl::seq<separator, cap_keyword, pegtl::must<server_delay_cap_argument>> {};
struct over_cap_words : pegtl::seq<separator, cap_keyword> {};
struct over_cap_action : word {};
struct over_cap_argument : pegtl::seq<separator, over_cap_action> {};
struct over_cap_clause : pegtl::seq<separator, over_keyword, pegtl::must<over_cap_words>,
                                    pegtl::must<over_cap_argument>> {};
// `10%`, or a fraction such as 0.1; the text includes the `%`.
struct server_delay_spread : pegtl::seq<word, pegtl::opt<pegtl::one<'%'>>> {};
struct spread_argument : pegtl::seq<separator, server_delay_spread> {};
struct spread_clause : pegtl::seq<separator, spread_keyword, pegtl::must<spread_argument>> {};
struct server_delay_statement
    : pegtl::seq<server_keyword, pegtl::must<server_delay_words>,
                 pegtl::must<server_delay_use_argument>, pegtl::opt<server_delay_cap_clause>,
                 pegtl::opt<over_cap_clause>, pegtl::opt<spread_clause>,
                 pegtl::must<end_of<server_keyword>>> {};

// ---- Breakers: `breaker NAME {` opens a breaker block (top level); `breaker NAME` in a policy
// ---- names the policy's breaker. The reader tells the two apart by the '{'.

struct breaker_name : name {};
struct breaker_name_argument : pegtl::seq<separator, breaker_name> {};
struct breaker_opening : pegtl::seq<blanks, opening_brace> {};
struct breaker_statement : pegtl::seq<breaker_keyword, pegtl::must<breaker_name_argument>,
                                      pegtl::opt<breaker_opening, pegtl::opt<inline_block_end>>,
                                      pegtl::must<end_of<breaker_keyword>>> {};

// `trip ratio 50% of 20 calls in 10s` | `trip after 5 consecutive failures`
struct trip_ratio_value : pegtl::seq<word, pegtl::opt<pegtl::one<'%'>>> {};  // with its `%`
struct trip_ratio_argument : pegtl::seq<separator, trip_ratio_value> {};
struct trip_of : pegtl::seq<separator, of_keyword> {};
struct trip_minimum_calls : word {};
struct trip_minimum_calls_argument : pegtl::seq<separator, trip_minimum_calls> {};
struct trip_calls : pegtl::seq<separator, calls_keyword> {};
struct trip_in : pegtl::seq<separator, in_keyword> {};
struct trip_window : word {};
struct trip_window_argument : pegtl::seq<separator, trip_window> {};
struct trip_ratio
    : pegtl::seq<ratio_keyword, pegtl::must<trip_ratio_argument>, pegtl::must<trip_of>,
                 pegtl::must<trip_minimum_calls_argument>, pegtl::must<trip_calls>,
                 pegtl::must<trip_in>, pegtl::must<trip_window_argument>> {};
struct trip_consecutive_count : word {};
struct trip_consecutive_argument : pegtl::seq<separator, trip_consecutive_count> {};
struct trip_consecutive_failures
    : pegtl::seq<separator, consecutive_keyword, separator, trip_failures_keyword> {};
struct trip_after : pegtl::seq<after_keyword, pegtl::must<trip_consecutive_argument>,
                               pegtl::must<trip_consecutive_failures>> {};
struct trip_form : pegtl::seq<separator, pegtl::sor<trip_ratio, trip_after>> {};
struct trip_statement
    : pegtl::seq<trip_keyword, pegtl::must<trip_form>, pegtl::must<end_of<trip_keyword>>> {};

// `open 5s [max 60s]`
struct open_for_value : word {};
struct open_for_argument : pegtl::seq<separator, open_for_value> {};
struct max_open_for_value : word {};
struct max_open_for_argument : pegtl::seq<separator, max_open_for_value> {};
struct open_max_clause : pegtl::seq<separator, max_keyword, pegtl::must<max_open_for_argument>> {};
struct open_statement : pegtl::seq<open_keyword, pegtl::must<open_for_argument>,
                                   pegtl::opt<open_max_clause>, pegtl::must<end_of<open_keyword>>> {
};

// `half open 1 calls`
struct half_open_words : pegtl::seq<separator, half_open_keyword> {};
struct half_open_count : word {};
struct half_open_count_argument : pegtl::seq<separator, half_open_count> {};
struct half_open_calls : pegtl::seq<separator, calls_keyword> {};
struct half_open_statement
    : pegtl::seq<half_keyword, pegtl::must<half_open_words>, pegtl::must<half_open_count_argument>,
                 pegtl::must<half_open_calls>, pegtl::must<end_of<half_keyword>>> {};

// `slow call 2s`
struct slow_call_words : pegtl::seq<separator, call_keyword> {};
struct slow_call_value : word {};
struct slow_call_argument : pegtl::seq<separator, slow_call_value> {};
struct slow_call_statement
    : pegtl::seq<slow_keyword, pegtl::must<slow_call_words>, pegtl::must<slow_call_argument>,
                 pegtl::must<end_of<slow_keyword>>> {};

// `failures transient, sqlstate class 08` (matchers as in `retry on`), or `failures none`
struct failures_matchers : pegtl::seq<separator, pegtl::sor<empty_list, matcher_list>> {};
struct failures_statement : pegtl::seq<failures_keyword, pegtl::must<failures_matchers>,
                                       pegtl::must<end_of<failures_keyword>>> {};

// ---- Hedging (docs/hedging.md): `hedge none`, or
//   hedge after D|pQ [within MIN..MAX] [window D] [warmup N] [extra P%] [burst N]
//         [on failure next|wait]
// ---- the parts after the delay optional and in this order. `2ms..250ms` is one word, which the
// ---- reader splits.

struct hedge_none : none_keyword {};
struct hedge_delay : word {};  // `20ms`, or `p95` for a learned delay
struct hedge_delay_argument : pegtl::seq<separator, hedge_delay> {};
struct hedge_range : word {};
struct hedge_range_argument : pegtl::seq<separator, hedge_range> {};
struct hedge_within_clause
    : pegtl::seq<separator, within_keyword, pegtl::must<hedge_range_argument>> {};
struct hedge_window : word {};
struct hedge_window_argument : pegtl::seq<separator, hedge_window> {};
struct hedge_window_clause
    : pegtl::seq<separator, window_keyword, pegtl::must<hedge_window_argument>> {};
struct hedge_warmup : word {};
struct hedge_warmup_argument : pegtl::seq<separator, hedge_warmup> {};
struct hedge_warmup_clause
    : pegtl::seq<separator, warmup_keyword, pegtl::must<hedge_warmup_argument>> {};
struct hedge_extra : pegtl::seq<word, pegtl::opt<pegtl::one<'%'>>> {};  // with its `%`, if any
struct hedge_extra_argument : pegtl::seq<separator, hedge_extra> {};
struct hedge_extra_clause
    : pegtl::seq<separator, extra_keyword, pegtl::must<hedge_extra_argument>> {};
struct hedge_burst : word {};
struct hedge_burst_argument : pegtl::seq<separator, hedge_burst> {};
struct hedge_burst_clause
    : pegtl::seq<separator, burst_keyword, pegtl::must<hedge_burst_argument>> {};
struct hedge_failure_word : pegtl::seq<separator, failure_keyword> {};
struct hedge_on_failure : word {};
struct hedge_on_failure_argument : pegtl::seq<separator, hedge_on_failure> {};
struct hedge_failure_clause
    : pegtl::seq<separator, hedge_on_keyword, pegtl::must<hedge_failure_word>,
                 pegtl::must<hedge_on_failure_argument>> {};
struct hedge_after : pegtl::seq<after_keyword, pegtl::must<hedge_delay_argument>,
                                pegtl::opt<hedge_within_clause>, pegtl::opt<hedge_window_clause>,
                                pegtl::opt<hedge_warmup_clause>, pegtl::opt<hedge_extra_clause>,
                                pegtl::opt<hedge_burst_clause>, pegtl::opt<hedge_failure_clause>> {
};
struct hedge_form : pegtl::seq<separator, pegtl::sor<hedge_none, hedge_after>> {};
struct hedge_statement
    : pegtl::seq<hedge_keyword, pegtl::must<hedge_form>, pegtl::must<end_of<hedge_keyword>>> {};

// ---- Lines -------------------------------------------------------------------------------------

// Any other first word: the reader reports it with the statements allowed where it stands.
struct unknown_word : pegtl::plus<pegtl::not_one<' ', '\t'>> {};
struct unknown_statement : pegtl::seq<unknown_word, pegtl::star<pegtl::any>> {};

// Every statement of the language, wherever it may stand; the reader checks the place.
struct statement
    : pegtl::sor<rebound_statement, service_statement, defaults_statement, policy_statement,
                 handler_statement, default_statement, backoff_statement, jitter_statement,
                 retry_statement, never_statement, on_exhausted_statement, budget_statement,
                 route_statement, routes_statement, server_delay_statement, breaker_statement,
                 trip_statement, open_statement, half_open_statement, slow_call_statement,
                 failures_statement, hedge_statement, scalar_field_statement, unknown_statement> {};

struct empty_line : line_end {};  // blank, or only a comment

// One line of a .rebound file, without its line break. Matches every line or raises.
struct grammar : pegtl::seq<blanks, pegtl::sor<empty_line, block_end, statement>> {};

// NOLINTEND(readability-identifier-naming)

}  // namespace rebound::dsl::text
