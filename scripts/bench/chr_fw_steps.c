// chr_fw_steps.c: counts the fixpoint steps of examples/chr/fw.chr on
// chr_gen's complete graph of N nodes as Note [Parallel firing]
// (frontends/chr/lower.go) runs them, without a GPU: in each step every
// edge (I,J) proposes the firing through the K of least D(I,K) + D(K,J)
// over the step's snapshot (chaining, Note [Indices]), and a proposal
// commits if neither kept edge is the owner of a proposal of higher
// priority (newer owners first, then the step's scrambled slot order,
// as claimValue orders them). It prints, per step, the proposals, the
// commits and the pairs (owner, K) that the step's search examines, the
// figures docs/BENCHMARKS.md sets against the hand-written CUDA's single
// pass, and the probes of edge(K,J) that pass Note [Guard bounds]'s
// test D3 > D1 + min D2 (frontends/chr/bound.go), D3 the chained owner's
// current value, per owner and per warp (32 owners (I,J) of consecutive
// J walk K together, and take the probe path where any of them passes);
// the replay walks K in order, the GPU in its index chain's order, so the
// probe counts are close, not exact. Step counts agree with gpuc run's --stats at N = 64 and 128; the
// firing counts differ by under 3%, where ties pick another K.
//
//   gcc -O2 -o chr_fw_steps chr_fw_steps.c && ./chr_fw_steps 1024
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t scramble(uint64_t s, uint64_t step) {
  uint64_t x = (s ^ (step * 2654435769ULL)) & 0xffffffffULL;
  x = (x * 2246822507ULL) & 0xffffffffULL;
  x ^= x >> 16;
  x = (x * 3266489909ULL) & 0xffffffffULL;
  return x ^ (x >> 13);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: chr_fw_steps N\n");
    return 2;
  }
  int64_t n = atoll(argv[1]);
  if (n < 3) {
    fprintf(stderr, "chr_fw_steps: N must be at least 3\n");
    return 2;
  }
  const int64_t none = INT64_C(1) << 40; // no edge (I,I)
  int64_t *d = malloc(sizeof *d * n * n), *best = malloc(sizeof *best * n * n);
  int64_t *via = malloc(sizeof *via * n * n), *born = malloc(sizeof *born * n * n);
  int64_t *prio = malloc(sizeof *prio * n * n);
  if (!d || !best || !via || !born || !prio) return 1;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) {
      d[i * n + j] = i == j ? none : ((i * 2654435761LL + j * 40503LL) % 4294967296LL) % 100 + 1;
      born[i * n + j] = 1;
    }
  int64_t firings = 0, pairs = 0, probes = 0;
  for (int64_t step = 1;; step++) {
    int64_t proposals = 0, commits = 0, stepProbes = 0, warpIters = 0, warpProbes = 0, lo = INT64_MAX;
    for (int64_t s = 0; s < n * n; s++)
      if (d[s] < lo) lo = d[s];
    for (int64_t i = 0; i < n; i++)
      for (int64_t j0 = 0; j0 < n; j0 += 32) {
        // A warp: the owners (i, j0..j0+31), walking K together; it takes
        // the probe path where any of them passes the bound.
        int64_t b[32], k[32], lanes = n - j0 < 32 ? n - j0 : 32;
        for (int64_t l = 0; l < lanes; l++) b[l] = d[i * n + j0 + l], k[l] = -1;
        for (int64_t x = 0; x < n; x++) {
          if (x == i) continue;
          int any = 0;
          for (int64_t l = 0; l < lanes; l++) {
            int64_t j = j0 + l;
            if (j == i || x == j || b[l] <= d[i * n + x] + lo) continue;
            stepProbes++;
            any = 1;
            if (d[i * n + x] + d[x * n + j] < b[l]) b[l] = d[i * n + x] + d[x * n + j], k[l] = x;
          }
          warpIters++;
          warpProbes += any;
        }
        for (int64_t l = 0; l < lanes; l++) {
        int64_t s = i * n + j0 + l;
        best[s] = b[l];
        via[s] = k[l];
        prio[s] = -1;
        if (k[l] >= 0) {
          int64_t age = step - born[s] < (1 << 20) - 1 ? step - born[s] : (1 << 20) - 1;
          prio[s] = (int64_t)((((uint64_t)(1 << 20) - 1 - (uint64_t)age) << 32) | scramble((uint64_t)s, (uint64_t)step));
          proposals++;
        }
        }
      }
    pairs += n * (n - 1) * (n - 2);
    probes += stepProbes;
    if (proposals == 0) {
      printf("step %lld: no proposal, the fixpoint, %lld probes past the bound (%.1f%%; a warp's walk probes at %.1f%% of its K); "
             "%lld pairs examined in all (one pass: %lld), %lld probes (%.1f%%)\n",
             (long long)step, (long long)stepProbes, 100.0 * stepProbes / (n * (n - 1) * (n - 2)), 100.0 * warpProbes / warpIters,
             (long long)pairs, (long long)(n * (n - 1) * (n - 2)), (long long)probes, 100.0 * probes / pairs);
      break;
    }
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++) {
        int64_t s = i * n + j, k = via[s];
        if (k >= 0 && !(prio[i * n + k] < prio[s] && prio[k * n + j] < prio[s])) via[s] = -1; // lost
      }
    for (int64_t s = 0; s < n * n; s++)
      if (via[s] >= 0) d[s] = best[s], born[s] = step + 1, commits++;
    firings += commits;
    printf("step %lld: %lld proposals, %lld commit, %lld lose; %lld probes past the bound (%.1f%% of the pairs; a warp's walk probes "
           "at %.1f%% of its K)\n",
           (long long)step, (long long)proposals, (long long)commits, (long long)(proposals - commits), (long long)stepProbes,
           100.0 * stepProbes / (n * (n - 1) * (n - 2)), 100.0 * warpProbes / warpIters);
  }
  printf("%lld firings\n", (long long)firings);
  return 0;
}
