// porter_stemmer_test.cpp: examples from Porter's 1980 paper and the reference vocabulary.
#include <catch2/catch.hpp>

#include "analysis/analyzer.hpp"
#include "analysis/stem_memo.hpp"

TEST_CASE("Porter stemmer matches the published examples", "[stemmer]") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"caresses", "caress"},
        {"ponies", "poni"},
        {"ties", "ti"},
        {"caress", "caress"},
        {"cats", "cat"},
        {"feed", "feed"},
        {"agreed", "agre"},
        {"plastered", "plaster"},
        {"bled", "bled"},
        {"motoring", "motor"},
        {"sing", "sing"},
        {"conflated", "conflat"},
        {"troubled", "troubl"},
        {"sized", "size"},
        {"hopping", "hop"},
        {"tanned", "tan"},
        {"falling", "fall"},
        {"hissing", "hiss"},
        {"fizzed", "fizz"},
        {"failing", "fail"},
        {"filing", "file"},
        {"happy", "happi"},
        {"sky", "sky"},
        {"relational", "relat"},
        {"conditional", "condit"},
        {"rational", "ration"},
        {"valenci", "valenc"},
        {"digitizer", "digit"},
        {"conformabli", "conform"},
        {"radicalli", "radic"},
        {"differentli", "differ"},
        {"vileli", "vile"},
        {"analogousli", "analog"},
        {"vietnamization", "vietnam"},
        {"predication", "predic"},
        {"operator", "oper"},
        {"feudalism", "feudal"},
        {"decisiveness", "decis"},
        {"hopefulness", "hope"},
        {"callousness", "callous"},
        {"formaliti", "formal"},
        {"sensitiviti", "sensit"},
        {"sensibiliti", "sensibl"},
        {"triplicate", "triplic"},
        {"formative", "form"},
        {"formalize", "formal"},
        {"electriciti", "electr"},
        {"electrical", "electr"},
        {"hopeful", "hope"},
        {"goodness", "good"},
        {"revival", "reviv"},
        {"allowance", "allow"},
        {"inference", "infer"},
        {"airliner", "airlin"},
        {"gyroscopic", "gyroscop"},
        {"adjustable", "adjust"},
        {"defensible", "defens"},
        {"irritant", "irrit"},
        {"replacement", "replac"},
        {"adjustment", "adjust"},
        {"dependent", "depend"},
        {"adoption", "adopt"},
        {"homologou", "homolog"},
        {"communism", "commun"},
        {"activate", "activ"},
        {"angulariti", "angular"},
        {"homologous", "homolog"},
        {"effective", "effect"},
        {"bowdlerize", "bowdler"},
        {"probate", "probat"},
        {"rate", "rate"},
        {"cease", "ceas"},
        {"controll", "control"},
        {"roll", "roll"},
        {"generalizations", "gener"},
        {"running", "run"},
        {"requests", "request"},
        {"deployments", "deploy"},
    };
    for (const auto& [word, stem] : cases) {
        INFO(word);
        CHECK(scout::detail::porter_stem(word) == stem);
    }
}

TEST_CASE("stemmer leaves short, non-ASCII and mixed words alone", "[stemmer]") {
    CHECK(scout::detail::porter_stem("is") == "is");
    CHECK(scout::detail::porter_stem("") == "");
    CHECK(scout::detail::porter_stem("café") == "café");
    CHECK(scout::detail::porter_stem("v2") == "v2");
}

TEST_CASE("the stem memo answers as the stemmer does, past its bound and for long words",
          "[stemmer]") {
    using scout::detail::kStemMemoEntries;
    using scout::detail::kStemMemoMaxBytes;
    using scout::detail::memo_porter_stem;
    using scout::detail::porter_stem;
    // Words of every suffix the stemmer knows, over more distinct stems than the memo holds, so
    // that it fills and starts afresh several times; each word is asked twice (once to fill,
    // once to hit) and, on a later pass, after the memo has been emptied.
    const std::vector<std::string> suffixes = {"",
                                               "s",
                                               "ing",
                                               "ed",
                                               "ation",
                                               "ational",
                                               "ness",
                                               "ment",
                                               "ize",
                                               "izer",
                                               "ful",
                                               "ly",
                                               "e",
                                               "ies"};
    std::vector<std::string> words;
    for (std::size_t i = 0; words.size() < 3 * kStemMemoEntries; ++i) {
        std::string base;
        for (std::size_t n = i; base.size() < 3 || n != 0; n /= 26) {
            base.push_back(static_cast<char>('a' + n % 26));
        }
        words.push_back(base + suffixes[i % suffixes.size()]);
    }
    words.push_back(std::string(kStemMemoMaxBytes + 9, 'a') + "ational");
    words.push_back("café");
    words.push_back("");
    std::size_t wrong = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (const std::string& w : words) {
            const std::string expected = porter_stem(w);
            if (memo_porter_stem(w) != expected || memo_porter_stem(w) != expected) {
                ++wrong;
            }
        }
    }
    CHECK(wrong == 0);
    CHECK(memo_porter_stem("generalizations") == "gener");
}
