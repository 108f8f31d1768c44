/* SPDX-License-Identifier: MIT */
/*
 * pl_mc_check -- every value written to memcached is read back.
 *
 *   pl_mc_check HOST PORT [--keys N] [--threads T] [--seed S]
 *
 * T threads each set N/T keys (text protocol: set / get) with values of
 * 1..4000 bytes derived from the key and the seed, then read every one of
 * them back and compare byte for byte.  Exit 0 when all match, 1 on any
 * mismatch, miss or protocol error (with a message), 2 on bad usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *host;
static int port, nkeys = 20000, nthreads = 4;
static unsigned long seed = 1;
static atomic_long bad, sets, gets;

typedef struct {
    int fd;
    char buf[65536];
    size_t len, off;
} conn_t;

static int conn_open(conn_t *c)
{
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (c->fd < 0)
        return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
        return -1;
    if (connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0)
        return -1;
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->len = c->off = 0;
    return 0;
}

static int send_all(conn_t *c, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);
        if (w <= 0) {
            if (w < 0 && errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* read exactly n bytes (n may be 0) */
static int read_n(conn_t *c, char *out, size_t n)
{
    while (n > 0) {
        if (c->off == c->len) {
            ssize_t r = recv(c->fd, c->buf, sizeof c->buf, 0);
            if (r <= 0)
                return -1;
            c->len = (size_t)r;
            c->off = 0;
        }
        size_t k = c->len - c->off < n ? c->len - c->off : n;
        memcpy(out, c->buf + c->off, k);
        c->off += k;
        out += k;
        n -= k;
    }
    return 0;
}

static int read_line(conn_t *c, char *out, size_t max)
{
    size_t n = 0;
    for (;;) {
        char ch;
        if (read_n(c, &ch, 1) != 0)
            return -1;
        if (ch == '\n') {
            if (n > 0 && out[n - 1] == '\r')
                n--;
            out[n] = 0;
            return 0;
        }
        if (n + 1 < max)
            out[n++] = ch;
    }
}

static size_t value_of(int k, char *v)
{
    uint64_t x = (uint64_t)k * 0x9e3779b97f4a7c15ull ^ seed * 0xbf58476d1ce4e5b9ull;
    x ^= x >> 31;
    size_t len = 1 + (size_t)(x % 4000);
    for (size_t i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v[i] = (char)('!' + x % 90);
    }
    return len;
}

static void *worker(void *p)
{
    int id = (int)(intptr_t)p;
    conn_t *c = calloc(1, sizeof *c);
    char *v = malloc(8192), *got = malloc(8192), line[512], cmd[512];
    if (!c || !v || !got || conn_open(c) != 0) {
        fprintf(stderr, "pl_mc_check: cannot connect to %s:%d: %s\n", host, port, strerror(errno));
        atomic_fetch_add(&bad, 1);
        return NULL;
    }
    int lo = id * (nkeys / nthreads), hi = lo + nkeys / nthreads;
    for (int k = lo; k < hi; k++) {
        size_t len = value_of(k, v);
        int n = snprintf(cmd, sizeof cmd, "set clofchk:%lu:%d %d 0 %zu\r\n", seed, k, k & 0xffff, len);
        if (send_all(c, cmd, (size_t)n) || send_all(c, v, len) || send_all(c, "\r\n", 2) ||
            read_line(c, line, sizeof line)) {
            fprintf(stderr, "pl_mc_check: connection lost at set %d\n", k);
            atomic_fetch_add(&bad, 1);
            goto out;
        }
        if (strcmp(line, "STORED") != 0) {
            fprintf(stderr, "pl_mc_check: set %d: %s\n", k, line);
            atomic_fetch_add(&bad, 1);
        }
        atomic_fetch_add(&sets, 1);
    }
    for (int k = lo; k < hi; k++) {
        size_t len = value_of(k, v);
        int n = snprintf(cmd, sizeof cmd, "get clofchk:%lu:%d\r\n", seed, k);
        if (send_all(c, cmd, (size_t)n) || read_line(c, line, sizeof line)) {
            fprintf(stderr, "pl_mc_check: connection lost at get %d\n", k);
            atomic_fetch_add(&bad, 1);
            goto out;
        }
        if (strcmp(line, "END") == 0) {
            fprintf(stderr, "pl_mc_check: key %d missing\n", k);
            atomic_fetch_add(&bad, 1);
            continue;
        }
        char key[256];
        unsigned flags;
        size_t glen;
        if (sscanf(line, "VALUE %255s %u %zu", key, &flags, &glen) != 3 || glen > 8000) {
            fprintf(stderr, "pl_mc_check: get %d: unexpected '%s'\n", k, line);
            atomic_fetch_add(&bad, 1);
            goto out;
        }
        if (read_n(c, got, glen + 2) || read_line(c, line, sizeof line) || strcmp(line, "END")) {
            fprintf(stderr, "pl_mc_check: get %d: bad reply\n", k);
            atomic_fetch_add(&bad, 1);
            goto out;
        }
        if (glen != len || memcmp(got, v, len) != 0 || flags != (unsigned)(k & 0xffff)) {
            fprintf(stderr, "pl_mc_check: key %d: value differs (len %zu vs %zu)\n", k, glen, len);
            atomic_fetch_add(&bad, 1);
        }
        atomic_fetch_add(&gets, 1);
    }
out:
    close(c->fd);
    free(c);
    free(v);
    free(got);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s HOST PORT [--keys N] [--threads T] [--seed S]\n", argv[0]);
        return 2;
    }
    host = argv[1];
    port = atoi(argv[2]);
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--keys"))
            nkeys = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads"))
            nthreads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            seed = strtoul(argv[i + 1], NULL, 10);
        else {
            fprintf(stderr, "pl_mc_check: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (nthreads < 1 || nthreads > 64 || nkeys < nthreads) {
        fprintf(stderr, "pl_mc_check: bad --keys/--threads\n");
        return 2;
    }
    pthread_t t[64];
    for (int i = 0; i < nthreads; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
    long want = (long)(nkeys / nthreads) * nthreads;
    printf("pl_mc_check: %ld sets, %ld gets verified, %ld problems\n", atomic_load(&sets),
           atomic_load(&gets), atomic_load(&bad));
    return atomic_load(&bad) == 0 && atomic_load(&gets) == want && atomic_load(&sets) == want ? 0 : 1;
}
