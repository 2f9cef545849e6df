# pq.py: product quantization of the word table for the version 2 .swm file: each row is cut
# into equal sub-vectors and each sub-vector replaced by the index of its nearest centroid in a
# per-sub-vector codebook. k-means (Lloyd) is deterministic: a seeded numpy generator picks the
# initial centroids, the iteration count is fixed, ties go to the lowest index, and the caller
# runs numpy on one thread (build-model.sh sets OPENBLAS_NUM_THREADS=1).
import numpy as np

SEED = 20251202


def nearest(points, centroids):
    """Index of each point's nearest centroid (squared Euclidean; ties to the lowest index)."""
    points, centroids = points.astype(np.float32), centroids.astype(np.float32)
    d = points @ (-2.0 * centroids.T)
    d += (centroids * centroids).sum(axis=1)[None, :]
    return d.argmin(axis=1)


def kmeans(points, k, iterations, rng, weights=None):
    """Lloyd's k-means; `weights` (one per point, default 1) weigh each point's error."""
    points = points.astype(np.float64)
    weights = np.ones(len(points)) if weights is None else weights.astype(np.float64)
    centroids = points[rng.choice(len(points), size=k, replace=False)].copy()
    for _ in range(iterations):
        assign = nearest(points, centroids)
        counts = np.bincount(assign, weights=weights, minlength=k)
        sums = np.stack([np.bincount(assign, weights=points[:, j] * weights, minlength=k)
                         for j in range(points.shape[1])], axis=1)
        filled = counts > 0
        centroids[filled] = sums[filled] / counts[filled, None]
        # An empty cluster takes the point farthest from its centroid, so no code is wasted.
        empty = np.flatnonzero(~filled)
        if len(empty):
            err = ((points - centroids[assign]) ** 2).sum(axis=1)
            far = np.argsort(-err, kind="stable")[: len(empty)]
            centroids[empty] = points[far]
    return centroids


def quantize(table, subvectors, centroids, iterations=25, seed=SEED, weights=None):
    """(fp16 codebooks [subvectors, centroids, dim / subvectors], uint8 codes [rows, subvectors]).
    The codes are chosen against the fp16 centroids the file stores; `weights` weigh the rows'
    errors in k-means."""
    rows, dim = table.shape
    assert dim % subvectors == 0 and 0 < centroids <= 256 and centroids <= rows
    sub = dim // subvectors
    rng = np.random.default_rng(seed)
    books = np.zeros((subvectors, centroids, sub), dtype=np.float16)
    codes = np.zeros((rows, subvectors), dtype=np.uint8)
    for s in range(subvectors):
        points = table[:, s * sub:(s + 1) * sub].astype(np.float64)
        books[s] = kmeans(points, centroids, iterations, rng, weights).astype(np.float16)
        codes[:, s] = nearest(points, books[s].astype(np.float64))
    return books, codes


def decode(books, codes):
    """The rows the codes stand for (float32), as scout decodes them before its int8 step."""
    subvectors = books.shape[0]
    return np.concatenate([books[s].astype(np.float32)[codes[:, s]] for s in range(subvectors)],
                          axis=1)
