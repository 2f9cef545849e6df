// porter_stemmer_test.cpp: examples from Porter's 1980 paper and the reference vocabulary.
#include <catch2/catch.hpp>

#include "analysis/analyzer.hpp"

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
