#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "rebound/internal/name_index.hpp"

using rebound::NameIndex;

TEST_CASE("a name index finds every inserted name and nothing else", "[name_index]") {
    NameIndex index;
    CHECK(index.find("anything") == NameIndex::npos);
    std::vector<std::string> names;
    for (int i = 0; i < 3000; ++i) {  // several growths
        names.push_back("orders.commands.Handle" +
                        std::string(static_cast<std::size_t>(i % 29), 'x') + std::to_string(i));
    }
    names.push_back("");
    names.push_back("a");
    names.push_back("abcdefgh");  // exactly one word
    for (std::size_t i = 0; i < names.size(); ++i) {
        REQUIRE(index.insert(names[i], static_cast<std::uint32_t>(i)));
    }
    CHECK(index.size() == names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        CHECK(index.find(names[i]) == i);
        CHECK(index.find(names[i], NameIndex::hash(names[i])) == i);
    }
    CHECK(index.find("abcdefg") == NameIndex::npos);    // a prefix of a name
    CHECK(index.find("abcdefghi") == NameIndex::npos);  // a name plus one character
    CHECK(index.find("orders.commands.Handle") == NameIndex::npos);
}

TEST_CASE("a name index refuses a duplicate and keeps the first value", "[name_index]") {
    NameIndex index;
    CHECK(index.insert("ApproveCase", 7));
    CHECK_FALSE(index.insert("ApproveCase", 8));
    CHECK(index.find("ApproveCase") == 7);
    CHECK(index.size() == 1);
}

TEST_CASE("a copied name index is independent of the original", "[name_index]") {
    auto original = std::make_unique<NameIndex>();
    original->insert("jobs.nightly.export.Run", 1);
    const NameIndex copy = *original;
    original.reset();
    CHECK(copy.find("jobs.nightly.export.Run") == 1);
}

TEST_CASE("the hash depends on every byte of names of any length", "[name_index]") {
    for (std::size_t length : {1U, 7U, 8U, 9U, 15U, 16U, 17U, 24U, 48U}) {
        const std::string base(length, 'a');
        for (std::size_t at = 0; at < length; ++at) {
            std::string changed = base;
            changed[at] = 'b';
            CHECK(NameIndex::hash(changed) != NameIndex::hash(base));
        }
    }
    CHECK(NameIndex::hash("ab") != NameIndex::hash(std::string("ab\0", 3)));
}
