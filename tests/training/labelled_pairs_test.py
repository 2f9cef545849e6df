#!/usr/bin/env python3
# labelled_pairs_test.py: the supervised rows of training/labelled_pairs.py. Checks the tool
# document (name words, category, description, parameters, like the library's), that hard
# negatives are the BM25 best tools other than the answers, padded when too few share a word,
# that evaluation text keeps a query out and a tool out of both sides, the per-tool cap, and
# that make_pairs.py writes the rows one tab-separated line each. Standard library only.
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "training"))

import decontaminate  # noqa: E402
import labelled_pairs  # noqa: E402


def tool(name, description, properties=None, required=()):
    out = {"name": name, "description": description}
    if properties is not None:
        out["inputSchema"] = {"type": "object", "properties": properties, "required": list(required)}
    return out


CATALOG = {"servers": [
    {"name": "weatherService", "description": "Weather data", "tools": [
        tool("get_forecast", "Daily weather forecast for a city",
             {"city": {"type": "string", "description": "City name"},
              "units": {"type": "string", "enum": ["metric", "imperial"]}}, ["city"]),
        tool("get_alerts", "Severe weather alerts issued for a city"),
        tool("air_quality", "Air quality index of a city"),
    ]},
    {"name": "files", "tools": [
        tool("read_file", "Reads a file from disk"),
        tool("leaked_tool", "Lists every alert rule of a monitoring workspace with its severity"),
    ]},
]}
QUERIES = {"queries": [
    {"query": "what is the weather forecast for Paris tomorrow",
     "relevant": [{"server": "weatherService", "tool": "get_forecast"}]},
    {"query": "show me the error budget of the payments checkout service",
     "relevant": [{"server": "files", "tool": "read_file"}]},
    {"query": "zzz qqq", "relevant": [{"server": "files", "tool": "read_file"}]},
    {"query": "any severe weather alerts for Oslo",
     "relevant": [{"server": "weatherService", "tool": "get_alerts"}]},
    {"query": "severe weather alerts in Rome right now",
     "relevant": [{"server": "weatherService", "tool": "get_alerts"}]},
    {"query": "monitoring alert rules", "relevant": [{"server": "files", "tool": "leaked_tool"}]},
]}
EVALUATION = {"servers": [{"name": "m", "tools": [
    tool("alert_rule_list", "Lists every alert rule of a monitoring workspace with its severity")]}],
    "queries": [{"query": "show me the error budget of the payments checkout service", "relevant": []}]}


class LabelledPairsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.source = os.path.join(cls.tmp.name, "labelled", "toy")
        os.makedirs(cls.source)
        for name, doc in (("catalog.json", CATALOG), ("queries.json", QUERIES)):
            with open(os.path.join(cls.source, name), "w", encoding="utf-8") as f:
                json.dump(doc, f)
        evaluation = os.path.join(cls.tmp.name, "datasets", "eval")
        os.makedirs(evaluation)
        for name in ("catalog.json", "queries.json"):
            with open(os.path.join(evaluation, name), "w", encoding="utf-8") as f:
                json.dump(EVALUATION, f)
        cls.datasets = os.path.dirname(evaluation)
        cls.cleaner = decontaminate.Decontaminator(decontaminate.evaluation_texts(cls.datasets))

    def rows(self, negatives=2, cleaner=None, per_tool=0):
        return labelled_pairs.labelled_rows(os.path.join(self.source, "catalog.json"),
                                            os.path.join(self.source, "queries.json"),
                                            negatives, cleaner, per_tool)

    def test_tool_document_reads_like_the_librarys(self):
        doc = labelled_pairs.tool_document(CATALOG["servers"][0], CATALOG["servers"][0]["tools"][0])
        self.assertEqual(doc, "Tool: get forecast Category: weather Service Server: Weather data "
                              "Description: Daily weather forecast for a city Parameters: "
                              "- city (string, required): City name "
                              "- units (string, optional, one of metric, imperial)")

    def test_hard_negatives_are_the_best_bm25_tools_that_are_not_answers(self):
        rows, _ = self.rows()
        forecast = [r for r in rows if r[0].startswith("what is the weather forecast")][0]
        self.assertIn("get forecast", forecast[1])
        self.assertEqual(len(forecast), 4)
        self.assertTrue(all("get forecast" not in n for n in forecast[2:]))
        self.assertIn("weather alerts", forecast[2])  # shares "weather" with the query

    def test_a_query_without_shared_words_is_padded_deterministically(self):
        rows, report = self.rows()
        padded = [r for r in rows if r[0] == "zzz qqq"]
        self.assertEqual(len(padded), 1)
        self.assertEqual(len(padded[0]), 4)
        self.assertTrue(all("read file" not in n for n in padded[0][2:]))
        self.assertGreaterEqual(report["queries_padded"], 1)
        self.assertEqual(self.rows()[0], rows)

    def test_evaluation_text_keeps_queries_and_tools_out(self):
        rows, report = self.rows(cleaner=self.cleaner)
        texts = [t for r in rows for t in r]
        self.assertFalse(any("error budget" in t for t in texts))
        self.assertFalse(any("monitoring workspace" in t for t in texts))
        self.assertEqual(report["queries_contaminated"], 1)
        self.assertEqual(report["tools_excluded"], 1)
        self.assertEqual(report["queries_gold_excluded"], 1)
        dirty, _ = self.rows()
        self.assertTrue(any("monitoring workspace" in t for r in dirty for t in r))

    def test_per_tool_cap(self):
        rows, report = self.rows(per_tool=1)
        self.assertEqual(sum("get alerts" in r[1] for r in rows), 1)
        self.assertEqual(report["rows_over_cap"], 2)  # get_alerts and read_file twice each

    def test_catalog_too_small_for_the_negatives_leaves_the_query_out(self):
        rows, report = self.rows(negatives=5)
        self.assertEqual(rows, [])
        self.assertEqual(report["queries_short_of_negatives"], 6)  # 4 other tools

    def test_make_pairs_writes_one_line_a_row(self):
        out = os.path.join(self.tmp.name, "pairs")
        translations = os.path.join(self.tmp.name, "Translation-en")
        with open(translations, "w", encoding="utf-8") as f:
            f.write("Package: fetchtool\nDescription-md5: 1\nDescription-en: fetches web pages\n"
                    " It downloads pages over HTTP and saves them.\n\n")
        wordnet = os.path.join(self.tmp.name, "wordnet")
        os.makedirs(wordnet)
        for pos in ("noun", "verb", "adj", "adv"):
            open(os.path.join(wordnet, "data." + pos), "w").close()
        subprocess.run([sys.executable, os.path.join(ROOT, "training", "make_pairs.py"),
                        "--translations", translations, "--wordnet", wordnet,
                        "--decontaminate", self.datasets,
                        "--labelled", os.path.dirname(self.source), "--labelled-sources", "toy",
                        "--hard-negatives", "2", "--out", out],
                       check=True, capture_output=True)
        with open(os.path.join(out, "toy.tsv"), encoding="utf-8") as f:
            lines = f.read().splitlines()
        self.assertEqual(len(lines), 4)  # 6 queries, one copied from evaluation, one of a left-out tool
        self.assertTrue(all(len(line.split("\t")) == 4 for line in lines))


if __name__ == "__main__":
    unittest.main()
