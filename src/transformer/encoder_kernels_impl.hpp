// encoder_kernels_impl.hpp: the forward pass, included by one .cpp per instruction set. The
// including file defines SCOUT_ENCODER_ISA (its namespace and name) and SCOUT_ENCODER_PANEL_ROWS
// (rows per register tile of the small-pass kernel, 0 for none), and is compiled with
// -DEigen=<unique name>, so each build's Eigen templates are distinct symbols. No standard
// containers here: every buffer comes from the caller.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>

#include <Eigen/Dense>
#include <unsupported/Eigen/SpecialFunctions>

#include "transformer/encoder_kernels.hpp"

namespace scout::detail::bert::SCOUT_ENCODER_ISA {
namespace {

/// Passes of up to this many tokens take the panel kernel (queries, short texts).
constexpr std::size_t kPanelPassRows = 24;

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Matrix = Eigen::Map<RowMatrix>;
using ConstMatrix = Eigen::Map<const RowMatrix>;
using StridedMatrix = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;
using ConstStridedMatrix = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
using ConstRow = Eigen::Map<const Eigen::RowVectorXf>;

/// y[rows, out] = x[rows, in] * w[out, in]^T + b.
void linear(const float* x,
            std::size_t rows,
            std::size_t in,
            const float* w,
            const float* b,
            std::size_t out,
            float* y) {
    const auto r = static_cast<Eigen::Index>(rows);
    Matrix Y(y, r, static_cast<Eigen::Index>(out));
    Y.noalias() =
        ConstMatrix(x, r, static_cast<Eigen::Index>(in)) *
        ConstMatrix(w, static_cast<Eigen::Index>(out), static_cast<Eigen::Index>(in)).transpose();
    Y.rowwise() += ConstRow(b, static_cast<Eigen::Index>(out));
}

#if SCOUT_ENCODER_PANEL_ROWS > 0
using Lanes = float __attribute__((vector_size(kPanelWidth * sizeof(float))));

/// y[R rows, columns of panels p and p + 1] = x[R rows] * w^T + b, accumulating in registers
/// while each panel streams once.
template <std::size_t R>
void panel_tile(const float* x,
                std::size_t in,
                const float* panels,
                std::size_t p,
                std::size_t npanels,
                const float* b,
                std::size_t out,
                float* y) {
    const bool two = p + 1 < npanels;
    const float* p0 = panels + p * in * kPanelWidth;
    const float* p1 = two ? p0 + in * kPanelWidth : p0;
    Lanes acc0[R];
    Lanes acc1[R];
    for (std::size_t r = 0; r < R; ++r) {
        acc0[r] = Lanes{};
        acc1[r] = Lanes{};
    }
    for (std::size_t k = 0; k < in; ++k) {
        Lanes w0;
        Lanes w1;
        std::memcpy(&w0, p0 + k * kPanelWidth, sizeof(Lanes));
        std::memcpy(&w1, p1 + k * kPanelWidth, sizeof(Lanes));
        for (std::size_t r = 0; r < R; ++r) {
            const float v = x[r * in + k];
            acc0[r] += v * w0;
            acc1[r] += v * w1;
        }
    }
    for (int half = 0; half < (two ? 2 : 1); ++half) {
        const std::size_t col = (p + static_cast<std::size_t>(half)) * kPanelWidth;
        const std::size_t n = std::min(kPanelWidth, out - col);
        for (std::size_t r = 0; r < R; ++r) {
            float lane[kPanelWidth];
            std::memcpy(lane, half == 0 ? &acc0[r] : &acc1[r], sizeof(Lanes));
            float* dst = y + r * out + col;
            for (std::size_t c = 0; c < n; ++c) {
                dst[c] = lane[c] + b[col + c];
            }
        }
    }
}

template <std::size_t R>
void panel_rows(const float* x,
                std::size_t rows,
                std::size_t in,
                const float* panels,
                const float* b,
                std::size_t out,
                float* y) {
    if constexpr (R > 1) {
        if (rows < R) {
            panel_rows<R - 1>(x, rows, in, panels, b, out, y);
            return;
        }
    }
    const std::size_t npanels = (out + kPanelWidth - 1) / kPanelWidth;
    for (std::size_t p = 0; p < npanels; p += 2) {
        panel_tile<R>(x, in, panels, p, npanels, b, out, y);
    }
}

/// y[rows, out] = x[rows, in] * w^T + b from the panel layout, SCOUT_ENCODER_PANEL_ROWS rows at a
/// time.
void panel_linear(const float* x,
                  std::size_t rows,
                  std::size_t in,
                  const float* panels,
                  const float* b,
                  std::size_t out,
                  float* y) {
    constexpr std::size_t tile = SCOUT_ENCODER_PANEL_ROWS;
    for (std::size_t r = 0; r < rows; r += tile) {
        panel_rows<SCOUT_ENCODER_PANEL_ROWS>(
            x + r * in, std::min(tile, rows - r), in, panels, b, out, y + r * out);
    }
}
#endif

/// y = x w^T + b, by the panel kernel for small passes when the panels exist, else Eigen's GEMM.
void project(const float* x,
             std::size_t rows,
             std::size_t in,
             const float* w,
             const float* panels,
             const float* b,
             std::size_t out,
             float* y) {
#if SCOUT_ENCODER_PANEL_ROWS > 0
    if (panels != nullptr && rows <= kPanelPassRows) {
        panel_linear(x, rows, in, panels, b, out, y);
        return;
    }
#else
    (void)panels;
#endif
    linear(x, rows, in, w, b, out, y);
}

/// x = LayerNorm(x + residual) row by row (residual may be null).
void add_layer_norm(float* x,
                    const float* residual,
                    std::size_t rows,
                    std::size_t h,
                    const float* g,
                    const float* b,
                    float eps) {
    const auto n = static_cast<Eigen::Index>(h);
    const ConstRow gain(g, n);
    const ConstRow bias(b, n);
    for (std::size_t i = 0; i < rows; ++i) {
        Eigen::Map<Eigen::RowVectorXf> row(x + i * h, n);
        if (residual != nullptr) {
            row += ConstRow(residual + i * h, n);
        }
        const float mean = row.mean();
        row.array() -= mean;
        const float var = row.squaredNorm() / static_cast<float>(h);
        row = (row * (1.0f / std::sqrt(var + eps))).cwiseProduct(gain) + bias;
    }
}

void activate(float* x, std::size_t count, Activation act) {
    auto a = Eigen::Map<Eigen::ArrayXf>(x, static_cast<Eigen::Index>(count));
    switch (act) {
        case Activation::gelu:
            a = 0.5f * a * (1.0f + (a * 0.70710678118654752f).erf());
            break;
        case Activation::gelu_tanh:
            a = 0.5f * a * (1.0f + (0.7978845608028654f * (a + 0.044715f * a.cube())).tanh());
            break;
        case Activation::relu:
            a = a.max(0.0f);
            break;
    }
}

/// Multi-head self-attention of one sequence of `len` tokens whose q, k, v rows start at `qkv`.
void attend(const float* qkv, std::size_t len, const EncoderView& m, float* ctx, float* scores) {
    const std::size_t h = m.hidden;
    const std::size_t d = h / m.heads;
    const auto L = static_cast<Eigen::Index>(len);
    const auto D = static_cast<Eigen::Index>(d);
    const Eigen::OuterStride<> qkv_stride(static_cast<Eigen::Index>(3 * h));
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    Matrix S(scores, L, L);
    for (std::size_t head = 0; head < m.heads; ++head) {
        ConstStridedMatrix q(qkv + head * d, L, D, qkv_stride);
        ConstStridedMatrix k(qkv + h + head * d, L, D, qkv_stride);
        ConstStridedMatrix v(qkv + 2 * h + head * d, L, D, qkv_stride);
        S.noalias() = (q * scale) * k.transpose();
        for (Eigen::Index i = 0; i < L; ++i) {
            auto row = S.row(i).array();
            row = (row - row.maxCoeff()).exp();
            row /= row.sum();
        }
        StridedMatrix out(ctx + head * d, L, D, Eigen::OuterStride<>(static_cast<Eigen::Index>(h)));
        out.noalias() = S * v;
    }
}

void encode(const EncoderView& m,
            const std::int32_t* ids,
            const std::size_t* offsets,
            std::size_t count,
            const Workspace& ws) {
    const std::size_t h = m.hidden;
    const std::size_t rows = offsets[count];
    for (std::size_t s = 0; s < count; ++s) {
        for (std::size_t t = offsets[s]; t < offsets[s + 1]; ++t) {
            const auto n = static_cast<Eigen::Index>(h);
            Eigen::Map<Eigen::RowVectorXf>(ws.hidden + t * h, n) =
                ConstRow(m.word + static_cast<std::size_t>(ids[t]) * h, n) +
                ConstRow(m.position + (t - offsets[s]) * h, n) + ConstRow(m.token_type, n);
        }
    }
    add_layer_norm(ws.hidden, nullptr, rows, h, m.emb_ln_g, m.emb_ln_b, m.eps);
    for (std::size_t l = 0; l < m.layers; ++l) {
        const LayerView& w = m.layer[l];
        project(ws.hidden, rows, h, w.qkv_w, w.qkv_p, w.qkv_b, 3 * h, ws.qkv);
        for (std::size_t s = 0; s < count; ++s) {
            attend(ws.qkv + offsets[s] * 3 * h,
                   offsets[s + 1] - offsets[s],
                   m,
                   ws.ctx + offsets[s] * h,
                   ws.scores);
        }
        // The attention output reuses the qkv buffer (free once ctx is computed).
        project(ws.ctx, rows, h, w.out_w, w.out_p, w.out_b, h, ws.qkv);
        add_layer_norm(ws.hidden, ws.qkv, rows, h, w.ln1_g, w.ln1_b, m.eps);
        project(ws.hidden, rows, h, w.ffn1_w, w.ffn1_p, w.ffn1_b, m.intermediate, ws.ffn);
        activate(ws.ffn, rows * m.intermediate, m.activation);
        project(ws.ffn, rows, m.intermediate, w.ffn2_w, w.ffn2_p, w.ffn2_b, h, ws.ctx);
        add_layer_norm(ws.hidden, ws.ctx, rows, h, w.ln2_g, w.ln2_b, m.eps);
    }
}

void gemm_nt(
    const float* a, const float* b, float* c, std::size_t m, std::size_t n, std::size_t k) {
    Matrix(c, static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(n)).noalias() =
        ConstMatrix(a, static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(k)) *
        ConstMatrix(b, static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(k)).transpose();
}

}  // namespace

extern const EncoderKernels kKernels;
const EncoderKernels kKernels{
    SCOUT_ENCODER_ISA_NAME, SCOUT_ENCODER_PANEL_ROWS > 0 ? kPanelPassRows : 0, &encode, &gemm_nt};

}  // namespace scout::detail::bert::SCOUT_ENCODER_ISA
