#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <random>
#include <string>
#include <vector>

#include "rebound/internal/rule_index.hpp"

using rebound::ErrorCategory;
using rebound::ErrorDescription;
using rebound::Matcher;
using rebound::RuleIndex;
using rebound::RuleMatch;
using rebound::Vendor;

namespace {

std::optional<std::size_t> find(const std::vector<Matcher>& matchers, const ErrorDescription& e,
                                const rebound::ErrorTypeRegistry* registry = nullptr) {
    const std::uint32_t index = RuleIndex::compile({}, matchers, registry).find(e).retry_on;
    return index == RuleMatch::kNone ? std::nullopt : std::optional<std::size_t>(index);
}

ErrorDescription with_sqlstate(std::string_view s) {
    ErrorDescription e;
    e.sqlstate = s;
    return e;
}

ErrorDescription with_type(std::string_view t) {
    ErrorDescription e;
    e.error_type = t;
    return e;
}

ErrorDescription with_http(int status) {
    ErrorDescription e;
    e.http_status = status;
    return e;
}

}  // namespace

TEST_CASE("category matchers and the transient group", "[matcher]") {
    const std::vector<Matcher> list{Matcher::of_category(ErrorCategory::Deadlock)};
    CHECK(find(list, ErrorDescription::of(ErrorCategory::Deadlock)) == 0u);
    CHECK_FALSE(find(list, ErrorDescription::of(ErrorCategory::LockTimeout)));

    const std::vector<Matcher> transient{Matcher::transient()};
    for (const auto& info : rebound::kCategoryTable) {
        CHECK(find(transient, ErrorDescription::of(info.category)).has_value() ==
              info.retryable_by_default);
    }
    // An error without a category counts as unknown, which is not transient.
    CHECK_FALSE(find(transient, ErrorDescription{}));
    CHECK(find({Matcher::of_category(ErrorCategory::Unknown)}, ErrorDescription{}) == 0u);
}

TEST_CASE("sqlstate and sqlstate class matchers are case-insensitive", "[matcher]") {
    const std::vector<Matcher> list{Matcher::sqlstate("40p01"), Matcher::sqlstate_class("08")};
    CHECK(find(list, with_sqlstate("40P01")) == 0u);
    CHECK(find(list, with_sqlstate("40p01")) == 0u);
    CHECK(find(list, with_sqlstate("08S01")) == 1u);
    CHECK(find(list, with_sqlstate("08006")) == 1u);
    CHECK_FALSE(find(list, with_sqlstate("40001")));
    CHECK_FALSE(find(list, with_sqlstate("08")));  // not a SQLSTATE
    CHECK_FALSE(find(list, with_sqlstate("")));
    CHECK(list[0].to_string() == "sqlstate:40P01");
    CHECK(list[1].to_string() == "sqlstate_class:08");
}

TEST_CASE("a sqlstate matches exactly where its ASCII upper case equals the rule's", "[matcher]") {
    // Every byte value at every position: the lookup tells upper case from lower case without
    // converting, so the bytes next to the letters (0x40, 0x5B, 0x60, 0x7B, 0xC1, 0xE1) are
    // checked against the plain definition. Upper-case letters of both halves of the alphabet
    // (0x41 to 0x4F, 0x50 to 0x5A) and digits around them, so that no other character of the
    // SQLSTATE hides a wrong test of the one that changes.
    const std::vector<Matcher> list{Matcher::sqlstate("HC0A1"), Matcher::sqlstate_class("ZP")};
    const auto upper = [](std::string text) {
        for (char& c : text) {
            c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
        }
        return text;
    };
    for (const std::string_view base : {"HC0A1", "ZP999", "00000"}) {
        for (std::size_t position = 0; position < base.size(); ++position) {
            for (int byte = 0; byte < 256; ++byte) {
                std::string sqlstate(base);
                sqlstate[position] = static_cast<char>(byte);
                std::optional<std::size_t> expected;
                if (upper(sqlstate) == "HC0A1") {
                    expected = 0;
                } else if (upper(sqlstate).substr(0, 2) == "ZP") {
                    expected = 1;
                }
                INFO("sqlstate byte " << byte << " at " << position << " of " << base);
                REQUIRE(find(list, with_sqlstate(sqlstate)) == expected);
            }
        }
    }
}

TEST_CASE("vendor native matchers need both vendor and code to be equal", "[matcher]") {
    const std::vector<Matcher> list{Matcher::native(Vendor::MySql, 1213)};
    ErrorDescription e;
    e.vendor = Vendor::MySql;
    e.native_code = 1213;
    CHECK(find(list, e) == 0u);
    e.vendor = Vendor::SqlServer;
    CHECK_FALSE(find(list, e));
    e.vendor = Vendor::MySql;
    e.native_code = 1205;
    CHECK_FALSE(find(list, e));
    e.native_code.reset();
    CHECK_FALSE(find(list, e));
    CHECK(list[0].to_string() == "native:mysql:1213");
}

TEST_CASE("error type matchers match dotted subtypes and registered subtypes", "[matcher]") {
    const std::vector<Matcher> list{Matcher::error_type("io.timeout")};
    CHECK(find(list, with_type("io.timeout")) == 0u);
    CHECK(find(list, with_type("io.timeout.read")) == 0u);
    CHECK(find(list, with_type("io.timeout.read.tls")) == 0u);
    CHECK_FALSE(find(list, with_type("io")));
    CHECK_FALSE(find(list, with_type("io.timeouts")));
    CHECK_FALSE(find(list, with_type("db.query_timeout")));

    rebound::ErrorTypeRegistry registry;
    registry.add("db.query_timeout", "io.timeout");
    registry.add("vendor.special", "db.query_timeout.slow");
    CHECK(find(list, with_type("db.query_timeout"), &registry) == 0u);
    CHECK(find(list, with_type("db.query_timeout.long"), &registry) == 0u);
    CHECK(find(list, with_type("vendor.special"), &registry) == 0u);
    CHECK_FALSE(find(list, with_type("db"), &registry));
    CHECK(list[0].to_string() == "error:io.timeout");
}

TEST_CASE("the error type registry refuses cycles, conflicts and bad names", "[matcher]") {
    rebound::ErrorTypeRegistry registry;
    registry.add("b", "a");
    registry.add("b", "a");  // same registration again is harmless
    CHECK_THROWS_AS(registry.add("b", "c"), std::invalid_argument);
    CHECK_THROWS_AS(registry.add("a", "b"), std::invalid_argument);
    CHECK_THROWS_AS(registry.add("a", "b.x"), std::invalid_argument);
    CHECK_THROWS_AS(registry.add("9bad", "a"), std::invalid_argument);
    CHECK(registry.is_subtype("b.x", "a"));
}

TEST_CASE("http matchers match a status or a whole class", "[matcher]") {
    const std::vector<Matcher> list{Matcher::http_status(503), Matcher::http_class(5),
                                    Matcher::http_status(429)};
    CHECK(find(list, with_http(503)) == 0u);
    CHECK(find(list, with_http(502)) == 1u);
    CHECK(find(list, with_http(599)) == 1u);
    CHECK(find(list, with_http(429)) == 2u);
    CHECK_FALSE(find(list, with_http(404)));
    CHECK_FALSE(find(list, with_http(0)));
    CHECK_FALSE(find(list, with_http(600)));
    CHECK_FALSE(find(list, with_http(-5)));
    CHECK(list[1].to_string() == "http:5xx");
}

TEST_CASE("message matchers look for a case-sensitive substring", "[matcher]") {
    const std::vector<Matcher> list{Matcher::message("database is locked")};
    ErrorDescription e;
    e.message = "[SQLite]database is locked (5)";
    CHECK(find(list, e) == 0u);
    e.message = "Database Is Locked";
    CHECK_FALSE(find(list, e));
    CHECK(list[0].to_string() == "message:database is locked");
}

TEST_CASE("the first matching rule in list order is reported", "[matcher]") {
    const std::vector<Matcher> list{
        Matcher::message("deadlock"), Matcher::sqlstate_class("40"), Matcher::sqlstate("40P01"),
        Matcher::of_category(ErrorCategory::Deadlock), Matcher::transient()};
    ErrorDescription e = ErrorDescription::of(ErrorCategory::Deadlock);
    e.sqlstate = "40P01";
    CHECK(find(list, e) == 1u);
    e.message = "deadlock detected";
    CHECK(find(list, e) == 0u);
    CHECK(find(list, ErrorDescription::of(ErrorCategory::Deadlock)) == 3u);
    CHECK(find(list, ErrorDescription::of(ErrorCategory::LockTimeout)) == 4u);
    CHECK(RuleIndex{}.find(e) == RuleMatch{});
}

TEST_CASE("both lists are searched at once and never_retry_on wins", "[matcher]") {
    const std::vector<Matcher> never{Matcher::http_status(401), Matcher::sqlstate("23505"),
                                     Matcher::message("read-only")};
    const std::vector<Matcher> retry{Matcher::sqlstate_class("23"), Matcher::sqlstate("23505"),
                                     Matcher::message("read-only"), Matcher::http_class(4)};
    const RuleIndex index = RuleIndex::compile(never, retry);
    ErrorDescription e;
    e.sqlstate = "23505";
    // A never_retry_on match hides the retry_on one: the decision stops at step 1.
    CHECK(index.find(e) == RuleMatch{1, RuleMatch::kNone});
    e.sqlstate = "23000";
    CHECK(index.find(e) == RuleMatch{RuleMatch::kNone, 0});
    e = ErrorDescription{};
    e.message = "cannot execute in a read-only transaction";
    CHECK(index.find(e) == RuleMatch{2, RuleMatch::kNone});
    e = ErrorDescription{};
    e.http_status = 401;
    CHECK(index.find(e) == RuleMatch{0, RuleMatch::kNone});
    e.http_status = 404;
    CHECK(index.find(e) == RuleMatch{RuleMatch::kNone, 3});
}

TEST_CASE("native codes match exactly per vendor, whatever their size", "[matcher]") {
    const std::vector<Matcher> list{
        Matcher::native(Vendor::Db2, -911), Matcher::native(Vendor::MySql, 1205),
        Matcher::native(Vendor::SqlServer, 1205),
        Matcher::native(Vendor::Oracle, std::numeric_limits<std::int64_t>::max()),
        Matcher::native(Vendor::Oracle, std::numeric_limits<std::int64_t>::min())};
    const auto native = [](Vendor v, std::int64_t code) {
        ErrorDescription e;
        e.vendor = v;
        e.native_code = code;
        return e;
    };
    CHECK(find(list, native(Vendor::Db2, -911)) == 0u);
    CHECK_FALSE(find(list, native(Vendor::Db2, 911)));
    CHECK(find(list, native(Vendor::MySql, 1205)) == 1u);
    CHECK(find(list, native(Vendor::SqlServer, 1205)) == 2u);
    CHECK_FALSE(find(list, native(Vendor::PostgreSql, 1205)));
    CHECK(find(list, native(Vendor::Oracle, std::numeric_limits<std::int64_t>::max())) == 3u);
    CHECK(find(list, native(Vendor::Oracle, std::numeric_limits<std::int64_t>::min())) == 4u);
    ErrorDescription no_vendor;
    no_vendor.native_code = 1205;
    CHECK_FALSE(find(list, no_vendor));
}

TEST_CASE("error types that share their first and last eight bytes stay apart", "[matcher]") {
    // These share their length, head and tail on purpose: only the bytes between tell them
    // apart, in the hash and in the comparison.
    std::vector<Matcher> list;
    for (char c = 'a'; c <= 'z'; ++c) {
        list.push_back(Matcher::error_type(std::string("servicea.") + c + ".timeouts"));
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string name = list[i].text;
        CHECK(find(list, with_type(name)) == i);
        CHECK(find(list, with_type(name + ".read")) == i);
    }
    CHECK_FALSE(find(list, with_type("servicea.A.timeouts")));
    CHECK_FALSE(find(list, with_type("servicea")));
    CHECK_FALSE(find(list, with_type(".servicea.a.timeouts")));
    CHECK_FALSE(find(list, with_type("servicea.a..timeouts")));
}

TEST_CASE("error types of every length match through their dotted prefixes", "[matcher]") {
    // Names from 1 to 100 characters: within one hashed word, within the two words compared
    // without memcmp, and beyond.
    std::vector<Matcher> list;
    for (std::size_t length = 1; length <= 100; length += 3) {
        list.push_back(Matcher::error_type("e" + std::string(length - 1, 'x')));
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string name = list[i].text;
        INFO(name.size() << " characters");
        CHECK(find(list, with_type(name)) == i);
        CHECK(find(list, with_type(name + ".child")) == i);
        CHECK(find(list, with_type(name + ".child.grandchild")) == i);
        CHECK_FALSE(find(list, with_type(name + "y")));
        CHECK_FALSE(find(list, with_type(name + "y.child")));
    }
    CHECK_FALSE(find(list, with_type(".e")));
}

TEST_CASE("error type lookup agrees with a plain walk over the dotted prefixes", "[matcher]") {
    // Small alphabets with many dots (prefixes that rule names continue, and some no rule name
    // continues), names around the eight-byte words the lookup hashes, and names past 64
    // characters; the reference
    // compares every dotted prefix and the whole name with every rule, in list order.
    std::mt19937 generator(20261127);
    const auto random_name = [&](std::size_t length) {
        std::string name(length, 'a');
        for (char& c : name) {
            c = "ab."[generator() % 3];
        }
        return name;
    };
    const auto random_length = [&] {
        return generator() % 4 == 0 ? 60 + generator() % 20 : 1 + generator() % 20;
    };
    int found = 0;
    for (int round = 0; round < 3000; ++round) {
        std::vector<Matcher> list;
        std::vector<std::string> names;
        for (std::size_t i = 0, rules = 1 + generator() % 12; i < rules; ++i) {
            names.push_back(random_name(random_length()));
            list.push_back(Matcher::error_type(names.back()));
        }
        const std::size_t picked = generator() % names.size();
        // Half the types extend a rule name, so that hits are common.
        const std::string type = generator() % 2 == 0
                                     ? names[picked] + "." + random_name(random_length())
                                     : random_name(random_length());
        std::optional<std::size_t> expected;
        for (std::size_t i = 0; i < names.size() && !expected; ++i) {
            const std::string_view name = names[i];
            const bool prefix =
                type.size() > name.size() && type.starts_with(name) && type[name.size()] == '.';
            if (type == name || prefix) {
                expected = i;
            }
        }
        found += expected ? 1 : 0;
        INFO("type '" << type << "', rule " << (expected ? names[*expected] : "none"));
        REQUIRE(find(list, with_type(type)) == expected);
    }
    CHECK(found > 1000);
}

namespace {

// The hash of rule_index.cpp, restated so that a test can solve it for a colliding name; the test
// below first checks that the restatement still agrees with RuleIndex::error_type_hash.
constexpr std::uint64_t kNameSeed = 0x243F6A8885A308D3ULL;
constexpr std::uint64_t kMultiplier = 0x9E3779B97F4A7C15ULL;

std::uint64_t word_at(std::string_view name, std::size_t at) {
    std::uint64_t word = 0;
    for (std::size_t i = 0; i < 8 && at + i < name.size(); ++i) {
        word |= std::uint64_t{static_cast<unsigned char>(name[at + i])} << (8 * i);
    }
    return word;
}

std::uint64_t step(std::uint64_t state, std::uint64_t word) {
    return (std::rotl(state, 23) ^ word) * kMultiplier;
}

// The state after the name's whole words.
std::uint64_t whole_words_state(std::string_view name) {
    std::uint64_t state = kNameSeed;
    for (std::size_t at = 0; at + 8 <= name.size(); at += 8) {
        state = step(state, word_at(name, at));
    }
    return state;
}

// One more step with the bytes after the whole words (none: a zero word).
std::uint64_t restated_hash(std::string_view name) {
    return step(whole_words_state(name), word_at(name, name.size() / 8 * 8));
}

// A name of `target`'s length (a multiple of 8) whose words all differ from target's but whose
// hash is target's: its last word is solved for target's state after the whole words, from which
// both hashes take the same last step.
std::string colliding_name(const std::string& target) {
    std::uint64_t inverse = kMultiplier;  // Newton's iteration for the inverse modulo 2^64
    for (int i = 0; i < 5; ++i) {
        inverse *= 2 - kMultiplier * inverse;
    }
    std::string name(target.size(), '\0');
    std::uint64_t state = kNameSeed;
    for (std::size_t at = 0; at + 8 < target.size(); at += 8) {
        for (std::size_t i = 0; i < 8; ++i) {
            name[at + i] = static_cast<char>(target[at + i] ^ 0x20);
        }
        state = step(state, word_at(name, at));
    }
    const std::uint64_t last = std::rotl(state, 23) ^ (whole_words_state(target) * inverse);
    for (std::size_t i = 0; i < 8; ++i) {
        name[target.size() - 8 + i] = static_cast<char>((last >> (8 * i)) & 0xFF);
    }
    return name;
}

}  // namespace

TEST_CASE("error types whose hashes collide stay apart", "[matcher]") {
    for (const std::string_view name :
         {"a", "io.timeout", "servicea.timeout", "payments.alpha.timeout",
          "auth.oauth2.token_endpoint.throttled"}) {
        REQUIRE(restated_hash(name) == RuleIndex::error_type_hash(name));
    }
    // 16, 24 and 32 characters: told apart by the first word, the first two, and memcmp.
    for (const std::string rule_name :
         {"servicea.timeout", "servicea.b.connection.lo", "servicea.b.connection.lost.xyzw1"}) {
        REQUIRE(rule_name.size() % 8 == 0);
        const std::string other = colliding_name(rule_name);
        INFO(rule_name.size() << " characters");
        REQUIRE(other != rule_name);
        REQUIRE(RuleIndex::error_type_hash(other) == RuleIndex::error_type_hash(rule_name));
        const std::vector<Matcher> list{Matcher::error_type(rule_name)};
        CHECK(find(list, with_type(rule_name)) == 0u);
        CHECK_FALSE(find(list, with_type(other)));
        CHECK_FALSE(find(list, with_type(other + ".child")));
    }
}

TEST_CASE("many rules of every kind are all found", "[matcher]") {
    std::vector<Matcher> list;
    for (int i = 0; i < 300; ++i) {
        list.push_back(Matcher::native(Vendor::PostgreSql, std::int64_t{i} * 7919));
        list.push_back(Matcher::error_type("app.e" + std::to_string(i)));
    }
    for (std::size_t i = 0; i < 300; ++i) {
        ErrorDescription e;
        e.vendor = Vendor::PostgreSql;
        e.native_code = static_cast<std::int64_t>(i) * 7919;
        CHECK(find(list, e) == 2 * i);
        CHECK(find(list, with_type("app.e" + std::to_string(i) + ".x")) == 2 * i + 1);
    }
}

TEST_CASE("compile chooses the AVX2 message search where the CPU has it", "[matcher]") {
    using Search = RuleIndex::MessageSearch;
    const std::vector<Matcher> list{Matcher::message("database is locked")};
    bool cpu_has_avx2 = false;
#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__) && defined(__GNUC__)
    cpu_has_avx2 = __builtin_cpu_supports("avx2") != 0;
#endif
    CHECK(RuleIndex::compile({}, list).message_search() ==
          (cpu_has_avx2 ? Search::Avx2 : Search::Portable));
    CHECK(RuleIndex::compile({}, list, nullptr, Search::Portable).message_search() ==
          Search::Portable);
    CHECK(RuleIndex::compile({}, std::vector{Matcher::http_status(503)}).message_search() ==
          Search::None);
}

TEST_CASE("message search agrees with std::string_view::find", "[matcher]") {
    // Both searches: the one compile chooses here (AVX2 where the CPU has it, 32 start positions
    // per step, messages of 32 bytes or more) and the portable one (SSE2, 16 per step). Small
    // alphabet so that first/last-character candidates are frequent; lengths around both block
    // sizes, and needles planted at the start, at the end and across block boundaries.
    std::mt19937 generator(20261123);
    const auto random_text = [&](std::size_t length) {
        std::string text(length, 'a');
        for (char& c : text) {
            c = static_cast<char>('a' + generator() % 3);
        }
        return text;
    };
    const auto random_length = [&](std::initializer_list<std::size_t> around, std::size_t limit) {
        if (generator() % 2 == 0) {
            return static_cast<std::size_t>(generator() % limit);
        }
        const std::size_t length = around.begin()[generator() % around.size()];
        return length + generator() % 3 - 1;  // one less, as is, one more
    };
    for (const RuleIndex::MessageSearch search :
         {RuleIndex::MessageSearch::Avx2, RuleIndex::MessageSearch::Portable}) {
        int found = 0;
        for (int round = 0; round < 20000; ++round) {
            std::string haystack = random_text(random_length({16, 32, 64, 97, 130}, 140));
            const std::string needle =
                random_text(std::max<std::size_t>(1, random_length({1, 16, 32, 64}, 41)));
            if (needle.size() <= haystack.size() && generator() % 2 == 0) {
                const std::size_t room = haystack.size() - needle.size();
                const std::size_t boundary = (1 + generator() % 4) * (generator() % 2 ? 16 : 32);
                const std::size_t at[] = {
                    0, room, std::min(room, boundary - std::min(boundary, needle.size() / 2))};
                haystack.replace(at[generator() % 3], needle.size(), needle);
            }
            ErrorDescription e;
            e.message = haystack;
            const bool expected = std::string_view(haystack).find(needle) != std::string_view::npos;
            found += expected ? 1 : 0;
            INFO("haystack '" << haystack << "', needle '" << needle << "', search "
                              << static_cast<int>(search));
            const RuleIndex index =
                RuleIndex::compile({}, std::vector{Matcher::message(needle)}, nullptr, search);
            REQUIRE((index.find(e).retry_on == 0) == expected);
        }
        CHECK(found > 4000);
    }
}

TEST_CASE("with many message rules the first that occurs is reported", "[matcher]") {
    // Up to 20 rules, one-character texts among them, texts longer than the message.
    std::mt19937 generator(4242);
    const auto random_text = [&](std::size_t length) {
        std::string text(length, 'a');
        for (char& c : text) {
            c = static_cast<char>('a' + generator() % 3);
        }
        return text;
    };
    for (int round = 0; round < 5000; ++round) {
        const std::string haystack = random_text(generator() % 60);
        std::vector<Matcher> list;
        std::vector<std::string> needles;
        const std::size_t rules = 1 + generator() % 20;
        for (std::size_t i = 0; i < rules; ++i) {
            needles.push_back(random_text(1 + generator() % 8));
            list.push_back(Matcher::message(needles.back()));
        }
        std::optional<std::size_t> expected;
        for (std::size_t i = 0; i < needles.size() && !expected; ++i) {
            if (std::string_view(haystack).find(needles[i]) != std::string_view::npos) {
                expected = i;
            }
        }
        ErrorDescription e;
        e.message = haystack;
        INFO("haystack '" << haystack << "', " << rules << " rules");
        REQUIRE(find(list, e) == expected);
    }
}
