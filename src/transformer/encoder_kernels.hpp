// encoder_kernels.hpp: the BERT encoder's forward pass over raw weight pointers, compiled once
// per instruction set (encoder_kernels_{generic,avx2,avx512}.cpp, each with Eigen in its own
// namespace so the builds cannot mix) and chosen at run time from the CPU's features.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "transformer/bert_config.hpp"

namespace scout::detail::bert {

/// Weights of one encoder layer. Linear weights are PyTorch's [out, in], row-major.
struct LayerView {
    const float* qkv_w = nullptr;  ///< [3H, H]: query, key and value rows stacked
    const float* qkv_b = nullptr;  ///< [3H]
    const float* out_w = nullptr;  ///< [H, H] attention output projection
    const float* out_b = nullptr;
    const float* ln1_g = nullptr;  ///< attention LayerNorm
    const float* ln1_b = nullptr;
    const float* ffn1_w = nullptr;  ///< [I, H]
    const float* ffn1_b = nullptr;
    const float* ffn2_w = nullptr;  ///< [H, I]
    const float* ffn2_b = nullptr;
    const float* ln2_g = nullptr;  ///< output LayerNorm
    const float* ln2_b = nullptr;
    /// The four projections again in panels of kPanelWidth output columns (see to_panels), for
    /// the small-pass kernel; null when the chosen build does not use them.
    const float* qkv_p = nullptr;
    const float* out_p = nullptr;
    const float* ffn1_p = nullptr;
    const float* ffn2_p = nullptr;
};

/// Output columns per weight panel: panel j holds w[j * kPanelWidth + c][k] at
/// (j * in + k) * kPanelWidth + c, zero-padded past the last row of w.
inline constexpr std::size_t kPanelWidth = 16;

struct EncoderView {
    std::size_t hidden = 0;
    std::size_t heads = 0;
    std::size_t intermediate = 0;
    std::size_t layers = 0;
    float eps = 1e-12f;
    Activation activation = Activation::gelu;
    const float* word = nullptr;        ///< [vocab, H]
    const float* position = nullptr;    ///< [max_positions, H]
    const float* token_type = nullptr;  ///< [type_vocab, H]; type 0 is used
    const float* emb_ln_g = nullptr;
    const float* emb_ln_b = nullptr;
    const LayerView* layer = nullptr;  ///< [layers]
};

/// Scratch memory for `rows` tokens in all, the longest sequence `max_len` tokens.
struct Workspace {
    float* hidden;  ///< [rows, H]: the output, the last layer's hidden states
    float* qkv;     ///< [rows, 3H]
    float* ctx;     ///< [rows, H]
    float* ffn;     ///< [rows, I]
    float* scores;  ///< [max_len, max_len]
};

struct EncoderKernels {
    const char* isa;
    /// Passes of at most this many tokens use the panel kernel when the panels are present
    /// (it streams each weight once, where a GEMM first repacks the whole matrix); 0: never.
    std::size_t panel_rows;
    /// Runs `count` sequences packed one after another: sequence s is ids[offsets[s],
    /// offsets[s+1]). Ids must be valid rows of `word` and lengths <= max positions.
    void (*encode)(const EncoderView& model,
                   const std::int32_t* ids,
                   const std::size_t* offsets,
                   std::size_t count,
                   const Workspace& ws);
    /// C[m, n] = A[m, k] * B[n, k]^T, all row-major: the GEMM the layers use (benchmarks).
    void (*gemm_nt)(
        const float* a, const float* b, float* c, std::size_t m, std::size_t n, std::size_t k);
};

/// The best build this CPU runs (SCOUT_FORCE_ISA=generic|avx2|avx512 overrides when supported).
[[nodiscard]] const EncoderKernels& encoder_kernels() noexcept;
/// A named build ("generic", "avx2", "avx512") if compiled in and supported here, else null.
[[nodiscard]] const EncoderKernels* find_encoder_kernels(std::string_view isa) noexcept;

}  // namespace scout::detail::bert
