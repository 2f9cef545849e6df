// transformer_speed.cpp: speed of the in-process transformer encoder with random weights of
// all-MiniLM-L6-v2's shape (6 layers, hidden 384, 12 heads, FFN 1536, vocabulary 30522),
// generated in memory. Measures this machine's single-precision GEMM peak with the same Eigen
// build the encoder uses (large matrices, 1 and N threads), query latency (p50/p90 of single
// texts on one thread) and document throughput (batches on N threads) with its fraction of the
// peak. Figures are in docs/embedders.md.
// Usage: scout-bench-transformer [--threads N] [--docs N] [--doc-tokens N] [--queries N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "bench_args.hpp"
#include "transformer/transformer_impl.hpp"
#include "util/split_mix.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

/// CPU time of the calling thread: on a shared machine it leaves out the time other processes
/// held the core, which wall-clock time includes.
double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double load_average() {
    double load = -1;
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf", &load) != 1) {
            load = -1;
        }
        std::fclose(f);
    }
    return load;
}

/// GFLOP/s of C = A B^T on n x n matrices, `threads` independent GEMMs at once (best of reps).
double gemm_peak(const scout::detail::bert::EncoderKernels& k, std::size_t n, std::size_t threads) {
    double best = 0;
    for (int rep = 0; rep < 5; ++rep) {
        std::vector<std::thread> pool;
        std::vector<double> rates(threads);
        for (std::size_t t = 0; t < threads; ++t) {
            pool.emplace_back([&, t] {
                std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n);
                k.gemm_nt(a.data(), b.data(), c.data(), n, n, n);  // warm-up
                const auto start = Clock::now();
                const int reps = 4;
                for (int r = 0; r < reps; ++r) {
                    k.gemm_nt(a.data(), b.data(), c.data(), n, n, n);
                }
                rates[t] = 2.0 * static_cast<double>(n * n * n) * reps / seconds_since(start) / 1e9;
            });
        }
        for (auto& t : pool) {
            t.join();
        }
        double sum = 0;
        for (double r : rates) {
            sum += r;
        }
        best = std::max(best, sum);
    }
    return best;
}

/// Matrix-multiply FLOPs of one sequence of `len` tokens (projections, FFN and attention).
double model_flops(const scout::detail::bert::BertConfig& c, std::size_t len) {
    const double h = static_cast<double>(c.hidden);
    const double l = static_cast<double>(len);
    const double per_layer =
        2.0 * l * (4.0 * h * h + 2.0 * h * static_cast<double>(c.intermediate)) + 4.0 * l * l * h;
    return per_layer * static_cast<double>(c.layers);
}

std::vector<std::int32_t> random_ids(scout::detail::SplitMix64& rng,
                                     std::size_t len,
                                     std::size_t vocab) {
    std::vector<std::int32_t> ids(len);
    ids.front() = 101;
    ids.back() = 102;
    for (std::size_t i = 1; i + 1 < len; ++i) {
        ids[i] = static_cast<std::int32_t>(1000 + rng.below(vocab - 1000));
    }
    return ids;
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t threads = std::max(1U, std::thread::hardware_concurrency());
    std::size_t docs = 64;
    std::size_t doc_tokens = 128;
    std::size_t queries = 200;
    using scout::bench::whole_into;
    const scout::args::CommandSpec command{
        "scout-bench-transformer",
        "",
        "The in-process transformer encoder: GEMM peak, query latency, document throughput "
        "(random MiniLM-shaped weights).",
        {{"options",
          {{"threads",
            "N",
            "the cores",
            "threads of the throughput runs",
            false,
            whole_into(threads, 1, 1024)},
           {"docs",
            "N",
            std::to_string(docs),
            "documents per throughput run",
            false,
            whole_into(docs, 1, 1000000)},
           {"doc-tokens",
            "N",
            std::to_string(doc_tokens),
            "tokens per document (at most 512)",
            false,
            whole_into(doc_tokens, 1, 512)},
           {"queries",
            "N",
            std::to_string(queries),
            "queries timed one by one",
            false,
            whole_into(queries, 1, 1000000)}}}}};
    int exit_code = 0;
    if (!scout::bench::parse_args(argc, argv, command, exit_code)) {
        return exit_code;
    }

    scout::detail::bert::BertConfig config;
    config.vocab_size = 30522;
    config.hidden = 384;
    config.layers = 6;
    config.heads = 12;
    config.intermediate = 1536;
    config.max_positions = 512;
    const auto& kernels = scout::detail::bert::encoder_kernels();
    std::printf(
        "encoder build: %s; MiniLM-L6 shape, random weights; %.1f MFLOP per token at 16 tokens; "
        "load average %.2f\n",
        kernels.isa,
        model_flops(config, 16) / 16 / 1e6,
        load_average());

    const double peak1 = gemm_peak(kernels, 1536, 1);
    const double peakn = gemm_peak(kernels, 1536, threads);
    std::printf(
        "GEMM peak (Eigen, 1536^3, C = A B^T): %.1f GFLOP/s on 1 thread, %.1f GFLOP/s on %zu "
        "threads\n",
        peak1,
        peakn,
        threads);

    scout::detail::TransformerAccess::Impl impl;
    impl.model = scout::detail::bert::BertModel::random(config, 42, kernels.panel_rows > 0);
    impl.kernels = &kernels;
    impl.pooling = scout::TransformerPooling::mean;
    impl.normalize = true;
    impl.threads = 1;
    scout::detail::SplitMix64 rng(7);

    // Queries with the small-pass panel kernel (the default where the build has one), then with
    // Eigen's GEMM alone, for comparison.
    scout::detail::TransformerAccess::Impl gemm_only = impl;
    gemm_only.model = scout::detail::bert::BertModel::random(config, 42, false);
    std::vector<const scout::detail::TransformerAccess::Impl*> variants{&impl};
    if (kernels.panel_rows > 0) {
        variants.push_back(&gemm_only);
    }
    for (const auto* variant : variants) {
        const char* path =
            variant->model->view().layer[0].qkv_p != nullptr ? "panel kernel" : "GEMM only";
        for (std::size_t len : std::vector<std::size_t>{8, 16, 32}) {
            std::vector<double> ms;
            std::vector<double> cpu_ms;
            for (std::size_t q = 0; q < queries; ++q) {
                const std::vector<std::vector<std::int32_t>> one{
                    random_ids(rng, len, config.vocab_size)};
                const auto start = Clock::now();
                const double cpu_start = thread_cpu_seconds();
                const auto v = variant->embed_ids(one);
                cpu_ms.push_back((thread_cpu_seconds() - cpu_start) * 1e3);
                ms.push_back(seconds_since(start) * 1e3);
                if (v.empty()) {
                    return 1;
                }
            }
            std::sort(ms.begin(), ms.end());
            std::sort(cpu_ms.begin(), cpu_ms.end());
            std::printf(
                "query of %2zu tokens, 1 thread, %s: p50 %.2f ms, p90 %.2f ms wall; p50 %.2f ms "
                "thread CPU (%.1f GFLOP/s)\n",
                len,
                path,
                ms[ms.size() / 2],
                ms[ms.size() * 9 / 10],
                cpu_ms[cpu_ms.size() / 2],
                model_flops(config, len) / (cpu_ms[cpu_ms.size() / 2] / 1e3) / 1e9);
        }
    }

    std::vector<std::vector<std::int32_t>> batch;
    for (std::size_t d = 0; d < docs; ++d) {
        batch.push_back(random_ids(rng, doc_tokens, config.vocab_size));
    }
    for (std::size_t t : {std::size_t{1}, threads}) {
        impl.threads = t;
        (void)impl.embed_ids({batch.front()});  // warm-up
        double best = 0;
        for (int rep = 0; rep < 3; ++rep) {
            const auto start = Clock::now();
            const auto v = impl.embed_ids(batch);
            best = std::max(best, static_cast<double>(docs) / seconds_since(start));
        }
        const double gflops = best * model_flops(config, doc_tokens) / 1e9;
        const double peak = t == 1 ? peak1 : peakn;
        std::printf(
            "documents of %zu tokens, %zu thread(s): %.1f documents/s, %.1f GFLOP/s = %.0f%% of "
            "the %zu-thread GEMM peak\n",
            doc_tokens,
            t,
            best,
            gflops,
            100.0 * gflops / peak,
            t);
        if (t == threads) {
            break;
        }
    }
    std::printf("load average at the end: %.2f\n", load_average());
    return 0;
}
