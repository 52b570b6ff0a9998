/* How fast this machine reads memory no cache holds, at random: the bound on an event's
 * cost once a network's state is far larger than the caches (benchmarks/README.md, "What
 * bounds an event at 100,000 flows").
 *
 * A region of MIB mebibytes is cut into 4 KiB nodes linked in one random cycle; CHAINS
 * walkers follow it from evenly spaced starts, each step reading the next node's address
 * and LINES - 1 more lines of the same node. One walker measures the latency of a miss;
 * many measure how many misses the core keeps in flight. HUGE = 1 asks the kernel for
 * transparent huge pages on the region (madvise), 0 forbids them.
 *
 *   cc -O2 -o random_lines benchmarks/machine/random_lines.c
 *   taskset -c 0 ./random_lines 1536 0 1 1     # latency, 4 KiB pages
 *   taskset -c 0 ./random_lines 1536 0 16 4    # 16 in flight, 4 lines a node
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define NODE 4096
#define STEPS 20000000UL

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s MIB HUGE CHAINS LINES\n", argv[0]);
        return 2;
    }
    size_t bytes = (size_t)atol(argv[1]) << 20;
    int huge = atoi(argv[2]), chains = atoi(argv[3]), lines = atoi(argv[4]);
    if (bytes < NODE * 64 || chains < 1 || chains > 64 || lines < 1 || lines > NODE / 64) {
        fprintf(stderr, "MIB >= 1, 1 <= CHAINS <= 64, 1 <= LINES <= 64\n");
        return 2;
    }
    char *p = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    memset(p, 1, bytes);
    size_t n = bytes / NODE;
    uint64_t *order = malloc(n * sizeof *order);
    for (size_t i = 0; i < n; i++) order[i] = i;
    uint64_t s = 88172645463325252ULL; /* xorshift: the same cycle every run */
    for (size_t i = n - 1; i > 0; i--) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        size_t j = s % (i + 1);
        uint64_t t = order[i];
        order[i] = order[j], order[j] = t;
    }
    for (size_t i = 0; i < n; i++) *(uint64_t *)(p + order[i] * NODE) = order[(i + 1) % n] * NODE;
    uint64_t at[64], sum = 0;
    for (int c = 0; c < chains; c++) at[c] = order[(size_t)c * (n / chains)] * NODE;
    free(order);
    size_t steps = STEPS / chains;
    double t0 = seconds();
    for (size_t k = 0; k < steps; k++)
        for (int c = 0; c < chains; c++) {
            uint64_t node = at[c];
            at[c] = *(volatile uint64_t *)(p + node);
            for (int l = 1; l < lines; l++) sum += *(volatile uint64_t *)(p + node + 64 * l);
        }
    double ns = (seconds() - t0) * 1e9;
    for (int c = 0; c < chains; c++) sum += at[c];
    printf("MiB=%zu huge=%d chains=%d lines=%d: %.1f ns a node, %.1f ns a step of all chains [%d]\n", bytes >> 20, huge,
           chains, lines, ns / (steps * chains), ns / steps, (int)(sum & 1));
    return 0;
}
