// sparse_engines.cpp: BM25 side by side on the same word lists: scout's Bm25Index, a naive
// in-memory BM25 (the exact reference: same formula and parameters), Xapian (glass backend,
// BM25Weight) and SQLite FTS5 (bm25()). Everyone ranks the top k of an OR of the query words.
#include <unistd.h>
#include <xapian.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <sqlite3.h>

#include "bench_common.hpp"
#include "sparse/bm25_index.hpp"

namespace scout::bench {
namespace {

using Clock = std::chrono::steady_clock;

/// Plain BM25 with the same formula and parameters as scout (Lucene idf, k1 1.2, b 0.75):
/// a fresh score array per query and a partial sort. Also the exact reference for scout.
class NaiveBm25 {
public:
    explicit NaiveBm25(const Corpus& c) : postings_(c.vocab.size()), n_(c.size()) {
        double total = 0;
        std::vector<std::pair<std::uint32_t, std::uint32_t>> counts;  // (word, tf) of one doc
        for (std::size_t d = 0; d < n_; ++d) {
            total += static_cast<double>(c.doc(d).size());
        }
        const double avgdl =
            std::max(total / static_cast<double>(std::max<std::size_t>(n_, 1)), 1e-9);
        std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> tf(c.vocab.size());
        for (std::size_t d = 0; d < n_; ++d) {
            std::vector<std::uint32_t> words(c.doc(d).begin(), c.doc(d).end());
            std::sort(words.begin(), words.end());
            for (std::size_t i = 0; i < words.size();) {
                std::size_t j = i;
                while (j < words.size() && words[j] == words[i]) {
                    ++j;
                }
                tf[words[i]].emplace_back(static_cast<std::uint32_t>(d),
                                          static_cast<std::uint32_t>(j - i));
                i = j;
            }
        }
        for (std::size_t w = 0; w < tf.size(); ++w) {
            const double df = static_cast<double>(tf[w].size());
            const double idf = std::log(1.0 + (static_cast<double>(n_) - df + 0.5) / (df + 0.5));
            for (auto [d, f] : tf[w]) {
                const double norm =
                    1.2 * (0.25 + 0.75 * static_cast<double>(c.doc(d).size()) / avgdl);
                postings_[w].emplace_back(d, static_cast<float>(idf * f * 2.2 / (f + norm)));
            }
        }
    }

    std::vector<ScoredDoc> search(const std::vector<std::uint32_t>& words, std::size_t k) const {
        std::vector<float> acc(n_, 0.0f);
        for (std::uint32_t w : words) {
            for (auto [d, s] : postings_[w]) {
                acc[d] += s;
            }
        }
        std::vector<ScoredDoc> hits;
        for (std::size_t d = 0; d < n_; ++d) {
            if (acc[d] > 0) {
                hits.push_back({static_cast<ToolId>(d), acc[d]});
            }
        }
        const auto top = std::min(k, hits.size());
        std::partial_sort(hits.begin(),
                          hits.begin() + static_cast<std::ptrdiff_t>(top),
                          hits.end(),
                          ranks_before);
        hits.resize(top);
        return hits;
    }

    std::size_t memory_bytes() const {
        std::size_t b = postings_.size() * sizeof(decltype(postings_)::value_type);
        for (const auto& p : postings_) {
            b += p.size() * sizeof(p[0]);
        }
        return b;
    }

private:
    std::vector<std::vector<std::pair<std::uint32_t, float>>> postings_;
    std::size_t n_;
};

std::size_t dir_bytes(const std::filesystem::path& dir) {
    std::size_t b = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
        if (e.is_regular_file()) {
            b += e.file_size();
        }
    }
    return b;
}

std::string fts_query(const Corpus& c, const std::vector<std::uint32_t>& words) {
    std::string q;
    for (std::uint32_t w : words) {
        std::string term;
        for (char ch : c.vocab[w]) {
            term += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        }
        q += (q.empty() ? "\"" : " OR \"") + term + "\"";
    }
    return q;
}

void sqlite_exec(sqlite3* db, const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
        std::fprintf(stderr, "sqlite: %s: %s\n", sql, err != nullptr ? err : "?");
        sqlite3_free(err);
    }
}

Row base_row(const Corpus& c, const char* engine, bool scout) {
    Row r;
    r.section = "bm25";
    r.corpus = c.name;
    r.n = c.size();
    r.engine = engine;
    r.scout = scout;
    return r;
}

void add_quality(Row& row,
                 const std::vector<std::vector<std::uint32_t>>& got,
                 const std::vector<std::vector<std::uint32_t>>& truth) {
    double sum = 0;
    std::size_t same = 0;
    for (std::size_t q = 0; q < truth.size(); ++q) {
        sum += overlap(got[q], truth[q]);
        same += got[q] == truth[q] ? 1U : 0U;
    }
    char buf[96];
    std::snprintf(buf,
                  sizeof buf,
                  "overlap@10 %.3f, identical lists %.0f%%",
                  sum / static_cast<double>(truth.size()),
                  100.0 * static_cast<double>(same) / static_cast<double>(truth.size()));
    row.quality = buf;
}

}  // namespace

void build_xapian_index(const Corpus& c, const std::filesystem::path& dir) {
    Xapian::WritableDatabase db(dir.string(),
                                Xapian::DB_CREATE_OR_OVERWRITE | Xapian::DB_BACKEND_GLASS);
    for (std::size_t d = 0; d < c.size(); ++d) {
        Xapian::Document doc;
        for (std::uint32_t w : c.doc(d)) {
            doc.add_term(c.vocab[w]);
        }
        db.add_document(doc);
    }
    db.commit();
}

std::vector<Row> run_sparse(const Config& cfg, const Corpus& c) {
    std::vector<Row> rows;
    const std::size_t nq = c.queries.size();
    std::vector<std::vector<std::string>> qterms(nq);
    for (std::size_t q = 0; q < nq; ++q) {
        for (std::uint32_t w : c.queries[q]) {
            qterms[q].push_back(c.vocab[w]);
        }
    }
    std::vector<std::vector<std::uint32_t>> truth(nq);

    {  // naive reference
        Row row = base_row(c, "naive in-memory BM25", false);
        const double t0 = thread_cpu_seconds();
        const NaiveBm25 naive(c);
        row.build_s = thread_cpu_seconds() - t0;
        row.bytes = naive.memory_bytes();
        for (std::size_t q = 0; q < nq; ++q) {
            truth[q] = ids_of(naive.search(c.queries[q], cfg.k));
        }
        measure(
            cfg, nq, [&](std::size_t q) { (void)naive.search(c.queries[q], cfg.k); }, row);
        row.quality = "exact reference";
        rows.push_back(row);
    }
    {  // scout
        Row row = base_row(c, "scout Bm25Index", true);
        const double t0 = thread_cpu_seconds();
        Bm25Index::Builder builder;
        for (std::size_t d = 0; d < c.size(); ++d) {
            builder.begin_document();
            for (std::uint32_t w : c.doc(d)) {
                builder.add(c.vocab[w], 1.0f);
            }
        }
        const Bm25Index index = std::move(builder).build(Bm25Options{});
        row.build_s = thread_cpu_seconds() - t0;
        row.bytes = index.memory_bytes();
        std::vector<ScoredDoc> out;
        std::vector<std::vector<std::uint32_t>> got(nq);
        for (std::size_t q = 0; q < nq; ++q) {
            index.search(qterms[q], cfg.k, nullptr, out);
            got[q] = ids_of(out);
        }
        add_quality(row, got, truth);
        measure(
            cfg, nq, [&](std::size_t q) { index.search(qterms[q], cfg.k, nullptr, out); }, row);
        char buf[64];
        std::snprintf(
            buf, sizeof buf, "%.0f tools/s build", static_cast<double>(c.size()) / row.build_s);
        row.note = buf;
        rows.push_back(row);
    }
    if (!cfg.peers) {
        return rows;
    }
    {  // Xapian
        Row row = base_row(c, "Xapian 1.4 BM25 (glass)", false);
        const auto dir = std::filesystem::temp_directory_path() /
                         ("scout-bench-xapian-" + std::to_string(getpid()));
        std::filesystem::remove_all(dir);
        try {
            const double t0 = thread_cpu_seconds();
            build_xapian_index(c, dir);
            row.build_s = thread_cpu_seconds() - t0;
            row.bytes = dir_bytes(dir);
            Xapian::Database db(dir.string());
            Xapian::Enquire enquire(db);
            enquire.set_weighting_scheme(Xapian::BM25Weight(1.2, 0, 1, 0.75, 0.5));
            std::vector<Xapian::Query> queries;
            queries.reserve(qterms.size());
            for (const auto& terms : qterms) {
                queries.emplace_back(Xapian::Query::OP_OR, terms.begin(), terms.end());
            }
            std::vector<std::vector<std::uint32_t>> got(nq);
            for (std::size_t q = 0; q < nq; ++q) {
                enquire.set_query(queries[q]);
                const Xapian::MSet mset = enquire.get_mset(0, static_cast<Xapian::doccount>(cfg.k));
                for (auto it = mset.begin(); it != mset.end(); ++it) {
                    got[q].push_back(*it - 1);  // Xapian numbers documents from 1
                }
            }
            add_quality(row, got, truth);
            measure(
                cfg,
                nq,
                [&](std::size_t q) {
                    enquire.set_query(queries[q]);
                    (void)enquire.get_mset(0, static_cast<Xapian::doccount>(cfg.k));
                },
                row);
        } catch (const Xapian::Error& e) {
            row.note = "failed: " + e.get_msg();
        }
        std::filesystem::remove_all(dir);
        rows.push_back(row);
    }
    {  // SQLite FTS5
        Row row = base_row(c, "SQLite 3.40 FTS5 bm25()", false);
        sqlite3* db = nullptr;
        sqlite3_open(":memory:", &db);
        const double t0 = thread_cpu_seconds();
        sqlite_exec(db, "CREATE VIRTUAL TABLE d USING fts5(body)");
        sqlite_exec(db, "BEGIN");
        sqlite3_stmt* ins = nullptr;
        sqlite3_prepare_v2(db, "INSERT INTO d(rowid, body) VALUES (?1, ?2)", -1, &ins, nullptr);
        for (std::size_t d = 0; d < c.size(); ++d) {
            const std::string text = c.text(d);
            sqlite3_bind_int64(ins, 1, static_cast<sqlite3_int64>(d));
            sqlite3_bind_text(ins, 2, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
            sqlite3_step(ins);
            sqlite3_reset(ins);
        }
        sqlite3_finalize(ins);
        sqlite_exec(db, "COMMIT");
        sqlite_exec(db, "INSERT INTO d(d) VALUES('optimize')");
        row.build_s = thread_cpu_seconds() - t0;
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(db,
                           "SELECT (SELECT page_count FROM pragma_page_count) * (SELECT page_size "
                           "FROM pragma_page_size)",
                           -1,
                           &st,
                           nullptr);
        if (sqlite3_step(st) == SQLITE_ROW) {
            row.bytes = static_cast<std::size_t>(sqlite3_column_int64(st, 0));
        }
        sqlite3_finalize(st);
        sqlite3_prepare_v2(
            db, "SELECT rowid FROM d WHERE d MATCH ?1 ORDER BY bm25(d) LIMIT ?2", -1, &st, nullptr);
        std::vector<std::string> fq;
        for (const auto& words : c.queries) {
            fq.push_back(fts_query(c, words));
        }
        const auto run = [&](std::size_t q, std::vector<std::uint32_t>* ids) {
            sqlite3_bind_text(st, 1, fq[q].data(), static_cast<int>(fq[q].size()), SQLITE_STATIC);
            sqlite3_bind_int64(st, 2, static_cast<sqlite3_int64>(cfg.k));
            while (sqlite3_step(st) == SQLITE_ROW) {
                if (ids != nullptr) {
                    ids->push_back(static_cast<std::uint32_t>(sqlite3_column_int64(st, 0)));
                }
            }
            sqlite3_reset(st);
        };
        const std::size_t checked = std::min<std::size_t>(nq, c.size() > 100000 ? 10 : nq);
        std::vector<std::vector<std::uint32_t>> got(checked);
        for (std::size_t q = 0; q < checked; ++q) {
            run(q, &got[q]);
        }
        std::vector<std::vector<std::uint32_t>> t(
            truth.begin(), truth.begin() + static_cast<std::ptrdiff_t>(checked));
        add_quality(row, got, t);
        measure(
            cfg, nq, [&](std::size_t q) { run(q, nullptr); }, row);
        sqlite3_finalize(st);
        sqlite3_close(db);
        rows.push_back(row);
    }
    return rows;
}

}  // namespace scout::bench
