#!/usr/bin/env python3
# decontaminate_test.py: the model's training pairs keep evaluation text out. Checks the
# decontaminator (copies, near-duplicates, unrelated text kept), that make_pairs.py applies it
# to every source it writes, that npm packages are checked against their SHA-256 pin and
# licence, that the API reference readers (api_pairs.py) keep public names and each side once,
# and, when the public datasets are present ($SCOUT_DATASETS or ../shared/datasets next
# to the checkout), that every one of their queries and reworded copies of them are caught.
# Standard library only.
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "training"))

import analysis  # noqa: E402
import api_pairs  # noqa: E402
import decontaminate  # noqa: E402
import make_pairs  # noqa: E402

QUERY = "Show me the error budget of the payments checkout service this week"
SHORT_QUERY = "rotate the signing keys of staging"
DESCRIPTION = ("Lists every alert rule of a monitoring workspace together with its severity, "
               "its evaluation frequency and the action group it notifies")
HELD_OUT = "which pager rotation covers the billing cluster tonight"


def write_json(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)


def make_datasets(directory):
    write_json(os.path.join(directory, "alpha", "catalog.json"), {"servers": [
        {"name": "monitor", "description": "Monitoring", "tools": [
            {"name": "alert_rule_list", "description": DESCRIPTION}]}]})
    write_json(os.path.join(directory, "alpha", "queries.json"), {"queries": [
        {"query": QUERY, "relevant": []}, {"query": SHORT_QUERY, "relevant": []}]})
    # A catalog without queries (unlabelled tools) is not evaluation text.
    write_json(os.path.join(directory, "unlabelled", "catalog.json"), {"servers": [
        {"name": "x", "tools": [{"name": "t", "description": "Creates a calendar event for a team"}]}]})
    held_out = os.path.join(directory, "held-out-queries.json")
    write_json(held_out, {"queries": [{"query": HELD_OUT, "relevant": []}]})
    return held_out


class DecontaminatorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        held_out = make_datasets(cls.tmp.name)
        cls.texts = decontaminate.evaluation_texts(cls.tmp.name, [held_out])
        cls.cleaner = decontaminate.Decontaminator(cls.texts)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_reads_queries_descriptions_and_extra_files_only(self):
        self.assertIn(QUERY, self.texts)
        self.assertIn(DESCRIPTION, self.texts)
        self.assertIn(HELD_OUT, self.texts)
        self.assertNotIn("Creates a calendar event for a team", self.texts)

    def test_copies_are_caught(self):
        c = self.cleaner.contaminated
        self.assertTrue(c(QUERY))
        self.assertTrue(c(QUERY.upper() + "!!"))                       # case, punctuation
        self.assertTrue(c("the " + QUERY.replace(" of ", " for ")))    # stop words
        self.assertTrue(c("Tool: " + SHORT_QUERY + ", then report back to the team lead"))
        self.assertTrue(c(HELD_OUT))
        # A passage of eight words of a long description, inside other text.
        self.assertTrue(c("Handy: alert rule of a monitoring workspace together with its severity, "
                          "its evaluation frequency, daily"))

    def test_near_duplicates_are_caught(self):
        c = self.cleaner.contaminated
        self.assertTrue(c("payments checkout service error budget this week, show me"))  # reordered
        self.assertTrue(c("Show me the error budget of the payments checkout service today"))
        self.assertTrue(c("signing keys of staging rotate"))

    def test_unrelated_and_loosely_related_text_is_kept(self):
        c = self.cleaner.contaminated
        self.assertFalse(c("Creates a pull request in a repository"))
        self.assertFalse(c("error budget"))                                # too short to be a copy
        self.assertFalse(c("Reports the error budget of a service level objective"))
        self.assertFalse(c("Lists every alert rule of a workspace"))      # 6 words of a longer text
        self.assertFalse(c("Creates a calendar event for a team"))        # unlabelled catalog

    def test_filter_drops_a_pair_when_either_side_is_contaminated(self):
        pairs = [("errors", QUERY), (SHORT_QUERY, "keys"), ("create issue", "Opens a new issue")]
        kept, dropped = self.cleaner.filter(pairs)
        self.assertEqual(kept, [("create issue", "Opens a new issue")])
        self.assertEqual(dropped, 2)

    def test_no_dataset_is_an_error(self):
        with tempfile.TemporaryDirectory() as empty:
            with self.assertRaises(ValueError):
                decontaminate.evaluation_texts(empty)


def tarball(directory, name, package_json, files):
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, name.lstrip("@").replace("/", "-") + "-1.0.0.tgz")
    with tarfile.open(path, "w:gz") as tar:
        for member, text in [("package/package.json", json.dumps(package_json))] + files:
            data = text.encode()
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    with open(path, "rb") as f:
        return path, hashlib.sha256(f.read()).hexdigest()


TOOL_JS = ('server.tool("rotate_keys", "Rotates the signing keys of an environment and revokes '
           'the old ones after a grace period.", {});\n'
           'server.tool("budget", "' + QUERY + ' and more words after it.", {});\n')


class MakePairsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def listing(self, entries):
        path = os.path.join(self.dir, "packages.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("# name version sha256 licence\n")
            for name, sha, licence in entries:
                f.write(f"{name} 1.0.0 {sha} {licence}\n")
        return path

    def test_npm_package_pairs_pin_and_licence(self):
        _, sha = tarball(self.dir, "@acme/keys-mcp", {"name": "@acme/keys-mcp", "license": "MIT"},
                         [("package/dist/index.js", TOOL_JS)])
        sources = make_pairs.npm_sources(self.dir, self.listing([("@acme/keys-mcp", sha, "MIT")]))
        self.assertIn(("rotate_keys", "Rotates the signing keys of an environment and revokes the "
                       "old ones after a grace period."), sources["npmtools"])
        with self.assertRaises(SystemExit):   # a changed tarball
            make_pairs.npm_sources(self.dir, self.listing([("@acme/keys-mcp", "0" * 64, "MIT")]))
        with self.assertRaises(SystemExit):   # a licence other than the one recorded
            make_pairs.npm_sources(self.dir, self.listing([("@acme/keys-mcp", sha, "Apache-2.0")]))
        _, gpl = tarball(self.dir, "gpl-mcp", {"name": "gpl-mcp", "license": "GPL-3.0"},
                         [("package/index.js", TOOL_JS)])
        with self.assertRaises(SystemExit):   # not a licence that allows redistributing weights
            make_pairs.npm_sources(self.dir, self.listing([("gpl-mcp", gpl, "GPL-3.0")]))

    def test_npm_cap_keeps_evenly_spaced_pairs(self):
        pairs = [(str(i), "x") for i in range(10)]
        self.assertEqual([a for a, _ in make_pairs.spread(pairs, 3)], ["0", "3", "6"])
        self.assertEqual(make_pairs.spread(pairs, 0), pairs)
        self.assertEqual(make_pairs.spread(pairs, 20), pairs)

    def test_make_pairs_writes_no_evaluation_text(self):
        held_out = make_datasets(os.path.join(self.dir, "datasets"))
        translations = os.path.join(self.dir, "Translation-en")
        with open(translations, "w", encoding="utf-8") as f:
            f.write("Package: budgetd\nDescription-md5: 1\nDescription-en: error budget daemon\n"
                    " " + QUERY + " using the daemon.\n\n"
                    "Package: keyd\nDescription-md5: 2\nDescription-en: key rotation daemon\n"
                    " Rotates keys on a schedule and keeps an audit log of every change.\n\n")
        wordnet = os.path.join(self.dir, "wordnet")
        os.makedirs(wordnet)
        for pos in ("noun", "verb", "adj", "adv"):
            with open(os.path.join(wordnet, "data." + pos), "w", encoding="utf-8") as f:
                f.write("  licence header\n00001740 03 n 01 key 0 000 | metal device shaped to open a lock; "
                        '"' + HELD_OUT + '"\n')
        _, sha = tarball(os.path.join(self.dir, "npm"), "@acme/keys-mcp",
                         {"name": "@acme/keys-mcp", "license": "MIT"},
                         [("package/dist/index.js", TOOL_JS)])
        listing = self.listing([("@acme/keys-mcp", sha, "MIT")])
        out = os.path.join(self.dir, "pairs")
        run = subprocess.run(
            [sys.executable, os.path.join(ROOT, "training", "make_pairs.py"),
             "--translations", translations, "--wordnet", wordnet,
             "--npm", os.path.join(self.dir, "npm"), "--npm-list", listing,
             "--decontaminate", os.path.join(self.dir, "datasets"),
             "--decontaminate-file", held_out, "--out", out],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        written = ""
        for name in sorted(os.listdir(out)):
            with open(os.path.join(out, name), encoding="utf-8") as f:
                written += f.read()
        self.assertIn("Rotates keys on a schedule", written)
        self.assertIn("Rotates the signing keys of an environment", written)
        self.assertIn("metal device shaped to open a lock", written)
        for text in (QUERY, HELD_OUT):
            self.assertNotIn(" ".join(analysis.words(text)), " ".join(analysis.words(written)))
        self.assertIn("debian 1 (1 dropped", run.stderr)
        self.assertIn("npmtools 1 (1 dropped", run.stderr)


MODULE = '''
def rotate_keys(env):
    """Rotate the signing keys of an environment.

    The old keys stay valid for a grace period of one hour."""

def _private_helper():
    """Reads the hidden state of the module quickly."""

class KeyRing:
    """Holds the signing keys of one environment.

    Keys are loaded lazily from the configured store."""
    def revoke(self, key):
        """Revoke one key at once and forever."""
    def _cache(self):
        """Keeps a private copy of every key."""

def alias(env):
    """Rotate the signing keys of an environment."""
'''

SERVICE = {
    "metadata": {"serviceId": "DocDB"},
    "operations": {
        "RemoveTagsFromResource": {"documentation": "<p>Removes metadata tags from a cluster "
                                                    "resource.</p> <p>Tags are key and value "
                                                    "pairs that label a resource.</p>"},
        "AddTags": {"documentation": "<p>Too short.</p>"},
        "Broken": "not an operation",
    },
}


class ApiPairsTest(unittest.TestCase):
    def test_docstrings_give_name_and_summary_pairs_of_public_names(self):
        pairs = api_pairs.file_pairs(MODULE)
        self.assertIn(("rotate keys", "Rotate the signing keys of an environment."), pairs)
        self.assertIn(("Rotate the signing keys of an environment.",
                       "The old keys stay valid for a grace period of one hour."), pairs)
        self.assertIn(("KeyRing revoke", "Revoke one key at once and forever."), pairs)
        written = " ".join(a + " " + b for a, b in pairs)
        self.assertNotIn("private", written)
        self.assertNotIn("hidden state", written)

    def test_each_side_is_kept_once(self):
        pairs = api_pairs._distinct_sides(api_pairs.file_pairs(MODULE))
        sides = [side for pair in pairs for side in pair]
        self.assertEqual(len(sides), len(set(sides)))
        self.assertIn(("rotate keys", "Rotate the signing keys of an environment."), pairs)
        self.assertNotIn(("alias", "Rotate the signing keys of an environment."), pairs)

    def test_stdlib_walk_skips_tests_and_dangling_links(self):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "test"))
            for path in ("keys.py", os.path.join("test", "keys.py"), "test_keys.py"):
                with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                    f.write(MODULE)
            os.symlink(os.path.join(root, "missing.py"), os.path.join(root, "gone.py"))
            with open(os.path.join(root, "broken.py"), "w", encoding="utf-8") as f:
                f.write("def (:\n")
            pairs = api_pairs.stdlib_pairs(root)
        self.assertEqual(pairs, api_pairs._distinct_sides(api_pairs.file_pairs(MODULE)))

    def test_service_model_pairs(self):
        pairs = api_pairs.service_model_pairs(json.dumps(SERVICE))
        self.assertEqual(pairs, [
            ("DocDB RemoveTagsFromResource", "Removes metadata tags from a cluster resource."),
            ("Removes metadata tags from a cluster resource.",
             "Tags are key and value pairs that label a resource.")])
        self.assertEqual(api_pairs._distinct_sides(pairs), pairs[:1])

    def test_botocore_reads_the_newest_version_of_each_service(self):
        old = dict(SERVICE, operations={"Describe": {"documentation": "Describes an old cluster "
                                                                      "of the service."}})
        with tempfile.TemporaryDirectory() as root:
            write_json(os.path.join(root, "docdb", "2014-10-31", "service-2.json"), old)
            write_json(os.path.join(root, "docdb", "2021-01-01", "service-2.json"), SERVICE)
            write_json(os.path.join(root, "endpoints.json"), {})
            pairs = api_pairs.botocore_pairs(root)
        self.assertEqual(pairs, [("DocDB RemoveTagsFromResource",
                                  "Removes metadata tags from a cluster resource.")])
        self.assertNotIn("old cluster", " ".join(a + b for a, b in pairs))

    def test_unparsable_input_gives_no_pairs(self):
        for text in ("{", "[1, 2]", "null", "\"text\"", "{\"operations\": 3}",
                     "{\"metadata\": 1, \"operations\": {}}"):
            self.assertEqual(api_pairs.service_model_pairs(text), [], text)
        for text in ("def (:", "\x00", "class A:\n  def"):
            self.assertEqual(api_pairs.file_pairs(text), [], text)


def public_datasets():
    candidates = [os.environ.get("SCOUT_DATASETS"), os.path.join(ROOT, "..", "shared", "datasets")]
    for d in candidates:
        if d and os.path.isdir(d) and any(
                os.path.exists(os.path.join(d, n, "queries.json")) for n in os.listdir(d)):
            return d
    return None


class PublicDatasetsTest(unittest.TestCase):
    def test_every_public_query_and_its_rewordings_are_caught(self):
        datasets = public_datasets()
        if datasets is None:  # they live outside the repository and CI does not fetch them
            self.skipTest("public datasets not found (set SCOUT_DATASETS)")
        queries = []
        for name in sorted(os.listdir(datasets)):
            path = os.path.join(datasets, name, "queries.json")
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    queries.extend(q["query"] for q in json.load(f)["queries"])
        cleaner = decontaminate.Decontaminator(decontaminate.evaluation_texts(datasets))
        checked = 0
        for q in queries:
            w = analysis.words(q.lower())
            if len(w) < decontaminate.MIN_WORDS:
                continue
            checked += 1
            self.assertTrue(cleaner.contaminated(q), q)
            self.assertTrue(cleaner.contaminated("Example: " + q.lower() + " please."), q)
            if len(set(w)) >= decontaminate.MIN_WORDS:
                self.assertTrue(cleaner.contaminated(" ".join(reversed(w))), q)   # reordered
            if len(set(w)) >= decontaminate.MIN_WORDS + 1:
                self.assertTrue(cleaner.contaminated(" ".join(w[1:])), q)     # a word dropped
        self.assertGreater(checked, 1000)


if __name__ == "__main__":
    unittest.main(verbosity=2)
