/* Every function and every reachable status of the emq-id C ABI, against the
 * generated header and the static library. Built with -Wall -Wextra -Werror and
 * run under valgrind memcheck by `cargo xtask test`. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emq_id.h"

#include "check.h"

#define S1 274557032793636864ULL
#define S2 320636799581945856ULL
#define T1 1769526697641LL

static void codec(void) {
    char out[14], ns[3];
    uint64_t s = 0;
    memset(out, '#', sizeof out);
    CHECK(branded_encode("USR", S1, out) == BRANDED_OK);
    CHECK(memcmp(out, "USR0KHTOWnGLuC", 14) == 0);
    CHECK(branded_encode("MAX", 9223372036854775807ULL, out) == BRANDED_OK);
    CHECK(memcmp(out, "MAXAzL8n0Y58m7", 14) == 0);

    memset(out, '#', sizeof out);
    CHECK(branded_encode("USR", 9223372036854775808ULL, out) == BRANDED_ERR_RANGE);
    CHECK(branded_encode("usr", 0, out) == BRANDED_ERR_RANGE);
    CHECK(out[0] == '#'); /* outputs only on BRANDED_OK */
    CHECK(branded_encode(NULL, 0, out) == EMQ_ERR_NULL);
    CHECK(branded_encode("USR", 0, NULL) == EMQ_ERR_NULL);

    CHECK(branded_decode("USR0NgWEfAEJfs", 14, ns, &s) == BRANDED_OK);
    CHECK(memcmp(ns, "USR", 3) == 0 && s == S2);
    s = 42;
    CHECK(branded_decode("USR0KHTOWnGLu", 13, ns, &s) == BRANDED_ERR_LENGTH);
    CHECK(branded_decode("usr0KHTOWnGLuC", 14, ns, &s) == BRANDED_ERR_NAMESPACE);
    CHECK(branded_decode("USR0KHTOWnGL!C", 14, ns, &s) == BRANDED_ERR_CHARSET);
    CHECK(branded_decode("USRzzzzzzzzzzz", 14, ns, &s) == BRANDED_ERR_RANGE);
    CHECK(branded_decode("USR0KHTOWnGL\0C", 14, ns, &s) == BRANDED_ERR_CHARSET);
    CHECK(s == 42);
    CHECK(branded_decode(NULL, 0, ns, &s) == BRANDED_ERR_LENGTH);
    CHECK(branded_decode(NULL, 14, ns, &s) == EMQ_ERR_NULL);
    CHECK(branded_decode("USR0NgWEfAEJfs", 14, NULL, &s) == EMQ_ERR_NULL);
    CHECK(branded_decode("USR0NgWEfAEJfs", 14, ns, NULL) == EMQ_ERR_NULL);

    CHECK(emq_parse_i64("USR0NgWEfAEJfs", 14) == (int64_t)S2);
    CHECK(emq_parse_i64("USR0KHTOWnGLu", 13) == -BRANDED_ERR_LENGTH);
    CHECK(emq_parse_i64("usr0KHTOWnGLuC", 14) == -BRANDED_ERR_NAMESPACE);
    CHECK(emq_parse_i64("USR0KHTOWnGL!C", 14) == -BRANDED_ERR_CHARSET);
    CHECK(emq_parse_i64("USRzzzzzzzzzzz", 14) == -BRANDED_ERR_RANGE);
    CHECK(emq_parse_i64(NULL, 14) == -EMQ_ERR_NULL);

    CHECK(branded_hash32(S1) == 234878118u);
    CHECK(branded_unix_ms(S1) == 1769526697641ULL);
    CHECK(branded_unix_ms(S2) == 1780512970164ULL);
    CHECK(emq_node(S1 | (1023u << 12)) == 1023 && emq_seq(S1 + 7) == 7);

    CHECK(emq_min_for(T1, &s) == BRANDED_OK && s == S1);
    CHECK(emq_min_for(0, &s) == BRANDED_OK && s == 0);
    CHECK(emq_min_for(1704067200000LL + (1LL << 41), &s) == BRANDED_ERR_RANGE);
    CHECK(emq_min_for(T1, NULL) == EMQ_ERR_NULL);
}

/* The batch codec: every answer is the one-by-one call's, up to the first refusal. */
static void codec_many(void) {
    const char *texts[] = {"USR0KHTOWnGLuC", "USR0NgWEfAEJfs", "MAXAzL8n0Y58m7", "JOB0KHTOWnGLuC"};
    char data[4 * 14];
    size_t lens[4] = {14, 14, 14, 14}, made = 99;
    for (int i = 0; i < 4; i++) memcpy(data + 14 * i, texts[i], 14);
    uint64_t s[4] = {0, 0, 0, 0};
    CHECK(emq_decode_many(data, lens, 4, s, &made) == BRANDED_OK && made == 4);
    CHECK(s[0] == S1 && s[1] == S2 && s[2] == 9223372036854775807ULL && s[3] == S1);

    /* One id of each gate, alone: the status of branded_decode, and nothing written. */
    const char *bad[] = {"USR0KHTOWnGLu", "usr0KHTOWnGLuC", "USR0KHTOWnGL!C", "USRzzzzzzzzzzz", "USR0KHTOWnGL\0C"};
    const size_t bad_len[] = {13, 14, 14, 14, 14};
    for (int i = 0; i < 5; i++) {
        char ns[3];
        uint64_t one = 42, alone = 42;
        branded_status want = branded_decode(bad[i], bad_len[i], ns, &alone);
        made = 99;
        CHECK(want != BRANDED_OK && emq_decode_many(bad[i], &bad_len[i], 1, &one, &made) == want);
        CHECK(made == 0 && one == 42);
    }

    /* A refusal in the middle: its index, the ids before it written, the rest untouched. */
    memcpy(data + 14 * 2, "USR0KHTOWnGL!C", 14);
    uint64_t mid[4] = {7, 7, 7, 7};
    CHECK(emq_decode_many(data, lens, 4, mid, &made) == BRANDED_ERR_CHARSET && made == 2);
    CHECK(mid[0] == S1 && mid[1] == S2 && mid[2] == 7 && mid[3] == 7);
    /* Lengths are per id: a 13-byte id then a 15-byte one is the length gate at index 0. */
    size_t uneven[2] = {13, 15};
    CHECK(emq_decode_many(data, uneven, 2, mid, &made) == BRANDED_ERR_LENGTH && made == 0 && mid[0] == S1);

    /* Count 0 reads nothing; NULL where something would be read is EMQ_ERR_NULL. */
    made = 99;
    CHECK(emq_decode_many(NULL, NULL, 0, NULL, &made) == BRANDED_OK && made == 0);
    CHECK(emq_decode_many(data, lens, 0, NULL, NULL) == EMQ_ERR_NULL);
    CHECK(emq_decode_many(NULL, lens, 1, s, &made) == EMQ_ERR_NULL && made == 0);
    CHECK(emq_decode_many(data, NULL, 1, s, &made) == EMQ_ERR_NULL);
    CHECK(emq_decode_many(data, lens, 1, NULL, &made) == EMQ_ERR_NULL);
    CHECK(emq_decode_many(data, lens, 1, s, NULL) == EMQ_ERR_NULL);
    size_t huge[2] = {SIZE_MAX, 2};
    CHECK(emq_decode_many(data, huge, 2, s, &made) == BRANDED_ERR_RANGE && made == 0);

    const uint64_t flakes[3] = {S1, S2, 9223372036854775807ULL};
    char out[3 * 14], one[14];
    CHECK(emq_encode_many("USR", flakes, 3, out, &made) == BRANDED_OK && made == 3);
    for (int i = 0; i < 3; i++) {
        CHECK(branded_encode("USR", flakes[i], one) == BRANDED_OK && memcmp(out + 14 * i, one, 14) == 0);
    }
    const uint64_t with_bad[3] = {S2, 9223372036854775808ULL, S1};
    memset(out, '#', sizeof out);
    CHECK(emq_encode_many("JOB", with_bad, 3, out, &made) == BRANDED_ERR_RANGE && made == 1);
    CHECK(memcmp(out, "JOB0NgWEfAEJfs", 14) == 0 && out[14] == '#' && out[41] == '#');
    CHECK(emq_encode_many("job", flakes, 3, out, &made) == BRANDED_ERR_RANGE && made == 0 && out[0] == 'J');
    made = 99;
    CHECK(emq_encode_many(NULL, NULL, 0, NULL, &made) == BRANDED_OK && made == 0);
    CHECK(emq_encode_many("USR", flakes, 0, out, NULL) == EMQ_ERR_NULL);
    CHECK(emq_encode_many(NULL, flakes, 1, out, &made) == EMQ_ERR_NULL && made == 0);
    CHECK(emq_encode_many("USR", NULL, 1, out, &made) == EMQ_ERR_NULL);
    CHECK(emq_encode_many("USR", flakes, 1, NULL, &made) == EMQ_ERR_NULL);
    CHECK(emq_encode_many("USR", flakes, 1, out, NULL) == EMQ_ERR_NULL);
    /* The namespace may lie in the output, as branded_encode allows: it is read before any write. */
    memcpy(out, "USR", 3);
    CHECK(emq_encode_many(out, flakes, 2, out, &made) == BRANDED_OK && made == 2);
    CHECK(branded_encode("USR", flakes[1], one) == BRANDED_OK && memcmp(out + 14, one, 14) == 0);
    CHECK(branded_encode("USR", flakes[0], one) == BRANDED_OK && memcmp(out, one, 14) == 0);
}

static void place(void) {
    uint16_t slot = 1;
    CHECK(emq_slot((const uint8_t *)"123456789", 9, &slot) == BRANDED_OK && slot == 12739);
    CHECK(emq_slot(NULL, 0, &slot) == BRANDED_OK && slot == 0);
    CHECK(emq_slot(NULL, 1, &slot) == EMQ_ERR_NULL);
    CHECK(emq_slot((const uint8_t *)"a", 1, NULL) == EMQ_ERR_NULL);

    CHECK(emq_slot_i32((const uint8_t *)"123456789", 9) == 12739);
    CHECK(emq_slot_i32(NULL, 0) == 0);
    CHECK(emq_slot_i32(NULL, 3) == -EMQ_ERR_NULL);

    uint16_t a, b;
    CHECK(emq_slot((const uint8_t *)"emq:{orders}:pending", 20, &a) == BRANDED_OK);
    CHECK(emq_slot((const uint8_t *)"orders", 6, &b) == BRANDED_OK && a == b);

    const char *data = "123456789" "emq:{orders}:pending" "" "\xff\x00{";
    size_t lens[4] = {9, 20, 0, 3};
    uint16_t slots[4];
    CHECK(emq_slot_many((const uint8_t *)data, lens, 4, slots) == BRANDED_OK);
    CHECK(slots[0] == 12739 && slots[1] == a && slots[2] == 0);
    CHECK(emq_slot((const uint8_t *)"\xff\x00{", 3, &slot) == BRANDED_OK && slots[3] == slot);
    CHECK(emq_slot_many(NULL, NULL, 0, NULL) == BRANDED_OK);
    CHECK(emq_slot_many((const uint8_t *)data, NULL, 4, slots) == EMQ_ERR_NULL);

    size_t off = 0, len = 0;
    CHECK(emq_hashtag((const uint8_t *)"foo{{bar}}zap", 13, &off, &len) == BRANDED_OK && off == 4 && len == 4);
    CHECK(emq_hashtag((const uint8_t *)"foo{}{bar}", 10, &off, &len) == BRANDED_OK && off == 0 && len == 10);
    CHECK(emq_hashtag((const uint8_t *)"x", 1, NULL, &len) == EMQ_ERR_NULL);
}

static uint8_t out[EMQ_MAX_KEY_LEN];
static size_t len;

/* emq_key over C strings; id may be NULL (no id). */
static branded_status KEY(const char *q, const char *k, const char *id, size_t cap) {
    size_t id_len = id ? strlen(id) : 0;
    return emq_key((const uint8_t *)q, strlen(q), (const uint8_t *)k, strlen(k), (const uint8_t *)id, id_len, out, cap, &len);
}

static void keyspace(void) {
    CHECK(KEY("orders", "pending", NULL, sizeof out) == BRANDED_OK);
    CHECK(len == 20 && memcmp(out, "emq:{orders}:pending", 20) == 0);
    CHECK(KEY("orders", "job", "JOB0KHTOWnGLuC", sizeof out) == BRANDED_OK);
    CHECK(len == 31 && memcmp(out, "emq:{orders}:job:JOB0KHTOWnGLuC", 31) == 0);
    CHECK(KEY("a{b}", "pending", NULL, sizeof out) == EMQ_ERR_QUEUE);
    CHECK(KEY("orders", "done", NULL, sizeof out) == EMQ_ERR_KIND);
    CHECK(KEY("orders", "active", "JOB0KHTOWnGLuC", sizeof out) == EMQ_ERR_KIND);
    CHECK(KEY("orders", "job", "USR0KHTOWnGLuC", sizeof out) == EMQ_ERR_KIND); /* emq-keyspace/2: EMQKIND */
    CHECK(KEY("orders", "job", NULL, sizeof out) == BRANDED_ERR_LENGTH);
    CHECK(KEY("orders", "job", "JOB0KHTOWnGL!C", sizeof out) == BRANDED_ERR_CHARSET);
    CHECK(KEY("orders", "job", "JOBzzzzzzzzzzz", sizeof out) == BRANDED_ERR_RANGE);
    len = 0;
    CHECK(KEY("orders", "pending", NULL, 5) == EMQ_ERR_BUFFER && len == 20);
    CHECK(emq_key((const uint8_t *)"q", 1, (const uint8_t *)"pending", 7, NULL, 0, out, sizeof out, NULL) == EMQ_ERR_NULL);

    char longest[129];
    memset(longest, 'q', 128);
    longest[128] = '\0';
    CHECK(KEY(longest, "pending", NULL, sizeof out) == BRANDED_OK);
    CHECK(KEY(longest, "job", "JOB0KHTOWnGLuC", sizeof out) == BRANDED_OK && len <= EMQ_MAX_KEY_LEN);

    /* emq-keyspace/2: types as the bus writes them, keys read back, the reserve, prefixes. */
    CHECK(KEY("orders", "g:vip:pending", NULL, sizeof out) == BRANDED_OK);
    CHECK(len == 26 && memcmp(out, "emq:{orders}:g:vip:pending", 26) == 0);
    CHECK(KEY("orders", "g:a:b:pending", NULL, sizeof out) == EMQ_ERR_KIND);
    char archived[7 + 128 + 9 + 1]; /* stream:<a name of 128 bytes>:archived, the longest type */
    memset(archived, 'n', sizeof archived - 1);
    memcpy(archived, "stream:", 7);
    memcpy(archived + 7 + 128, ":archived", 9);
    archived[sizeof archived - 1] = '\0';
    CHECK(KEY(longest, archived, NULL, sizeof out) == BRANDED_OK && len == EMQ_MAX_KEY_LEN);

    const char *k = "emq:{orders}:job:JOB0KHTOWnGLuC:lock";
    emq_parsed_key parts;
    CHECK(emq_parse_key((const uint8_t *)k, strlen(k), &parts) == BRANDED_OK);
    CHECK(parts.queue_offset == 5 && parts.queue_len == 6 && parts.param_offset == 17 && parts.param_len == 14);
    CHECK(emq_family_pattern(parts.family, out, sizeof out, &len) == BRANDED_OK && len == 13 && memcmp(out, "job:<id>:lock", 13) == 0);
    CHECK(emq_family_pattern(9999, out, sizeof out, &len) == EMQ_ERR_KIND);
    CHECK(emq_parse_key((const uint8_t *)"{emq}:version", 13, &parts) == EMQ_ERR_QUEUE);
    CHECK(emq_parse_key((const uint8_t *)k, strlen(k), NULL) == EMQ_ERR_NULL);

    CHECK(emq_reserve((const uint8_t *)"locks", 5, out, sizeof out, &len) == BRANDED_OK && len == 11 && memcmp(out, "{emq}:locks", 11) == 0);
    CHECK(emq_reserve((const uint8_t *)"a b", 3, out, sizeof out, &len) == EMQ_ERR_KIND);
    CHECK(emq_queue_prefix((const uint8_t *)"orders", 6, out, sizeof out, &len) == BRANDED_OK && len == 13 && memcmp(out, "emq:{orders}:", 13) == 0);
    CHECK(emq_job_prefix((const uint8_t *)"orders", 6, out, sizeof out, &len) == BRANDED_OK && len == 17 && memcmp(out, "emq:{orders}:job:", 17) == 0);
    size_t bytes = 0;
    CHECK(emq_prefix_bytes((const uint8_t *)"orders", 6, (const uint8_t *)"job:", 4, &bytes) == BRANDED_OK && bytes == 17);
    CHECK(emq_prefix_bytes((const uint8_t *)"orders", 6, (const uint8_t *)"job", 3, &bytes) == EMQ_ERR_KIND);

    /* Stream entry ids. */
    uint8_t entry[EMQ_MAX_ENTRY_ID_LEN];
    char id[14];
    CHECK(emq_xadd_id((const uint8_t *)"EVT000xY9Wvvcd", 14, entry, sizeof entry, &len) == BRANDED_OK);
    CHECK(len == 21 && memcmp(entry, "1704117200000-1620567", 21) == 0);
    CHECK(emq_xadd_id((const uint8_t *)"ORD000xY9Wvvcd", 14, entry, sizeof entry, &len) == EMQ_ERR_KIND);
    CHECK(emq_from_xadd_id(entry, 21, "EVT", 3, id) == BRANDED_OK && memcmp(id, "EVT000xY9Wvvcd", 14) == 0);
    CHECK(emq_from_xadd_id((const uint8_t *)"1704117200000-x", 15, "EVTX", 4, id) == BRANDED_ERR_CHARSET);
    CHECK(emq_from_xadd_id(entry, 21, "EVTX", 4, id) == BRANDED_ERR_RANGE);
    CHECK(emq_from_xadd_id((const uint8_t *)"5-0", 3, "EVT", 3, id) == BRANDED_ERR_RANGE);
    CHECK(emq_from_xadd_id(entry, 21, NULL, 3, id) == EMQ_ERR_NULL);
    CHECK(emq_from_xadd_id(entry, 21, "EVT", 3, NULL) == EMQ_ERR_NULL);
}

static void mint(void) {
    uint64_t state = 0, next = 0, s = 0, t = 0;
    CHECK(emq_mint_step(0, 0, T1, &state, &s) == BRANDED_OK && s == S1);
    CHECK(emq_mint_step(state, 0, T1 - 1000, &next, &t) == BRANDED_OK && t == S1 + 1 && next == state + 1);
    CHECK(emq_mint_step(0, 1024, T1, &state, &s) == BRANDED_ERR_RANGE);
    CHECK(emq_mint_step(0, 0, 1704067200000LL + (1LL << 41), &state, &s) == BRANDED_ERR_RANGE);
    CHECK(emq_mint_step(0, 0, T1, NULL, &s) == EMQ_ERR_NULL);

    emq_minter *m = NULL;
    CHECK(emq_minter_new(1024, &m) == BRANDED_ERR_RANGE && m == NULL);
    CHECK(emq_minter_new(7, NULL) == EMQ_ERR_NULL);
    CHECK(emq_minter_new(7, &m) == BRANDED_OK && m != NULL);
    CHECK(emq_minter_next_at(m, T1, &s) == BRANDED_OK && emq_node(s) == 7 && emq_seq(s) == 0);
    CHECK(emq_minter_next_at(m, 1704067200000LL + (1LL << 41), &t) == BRANDED_ERR_RANGE);
    CHECK(emq_minter_next_at(m, T1, &t) == BRANDED_OK && t == s + 1); /* state survived */
    CHECK(emq_minter_next(m, &t) == BRANDED_OK && t > s + 1);
    int64_t v = emq_minter_next_i64(m, INT64_MIN);
    CHECK(v > (int64_t)t);
    CHECK(emq_minter_next_i64(m, T1) == v + 1); /* the clock went back: state + 1 */
    CHECK(emq_minter_next_i64(m, 1704067200000LL + (1LL << 41)) == -BRANDED_ERR_RANGE);
    CHECK(emq_minter_next_i64(NULL, T1) == -EMQ_ERR_NULL);
    t = (uint64_t)v + 1;
    uint64_t many[5000];
    size_t made = 0;
    CHECK(emq_minter_next_many(m, many, 5000, &made) == BRANDED_OK && made == 5000);
    int increasing = many[0] > t;
    for (size_t i = 1; i < made; i++) increasing &= many[i] > many[i - 1];
    CHECK(increasing);
    CHECK(emq_minter_next(NULL, &t) == EMQ_ERR_NULL);
    CHECK(emq_minter_next_at(m, T1, NULL) == EMQ_ERR_NULL);
    CHECK(emq_minter_next_many(m, NULL, 1, &made) == EMQ_ERR_NULL);
    emq_minter_free(m);
    emq_minter_free(NULL);
}

/* The text (pointer, *length) equals the C string `want`. The length is read
 * through its pointer, after the call that wrote it (arguments have no order). */
static int is_text(const uint8_t *text, const size_t *len, const char *want) {
    return text != NULL && *len == strlen(want) && memcmp(text, want, *len) == 0;
}

/* How many KEYS (or ARGV) script `index` takes: the walk a host does for EVAL's numkeys. */
static size_t count_of(const uint8_t *(*part)(size_t, size_t, size_t *), size_t index) {
    size_t n = 0, len = 0;
    while (part(index, n, &len) != NULL) n++;
    return n;
}

/* Node leases (emq-lease/3): the scripts, keys, replies and the leased minter. */
static void lease(void) {
    size_t len = 0;
    const uint8_t *text;

    /* The scripts, by index in the core's order, each field a static text. */
    CHECK(emq_lease_script_count() == 3);
    const char *names[] = {"acquire", "renew", "release"};
    const size_t keys[] = {1, 1, 1}, args[] = {5, 4, 3};
    for (size_t i = 0; i < 3; i++) {
        CHECK(is_text(emq_lease_script_name(i, &len), &len, names[i]));
        text = emq_lease_script_text(i, &len);
        CHECK(text != NULL && len > 40 && text[len - 1] == '\n');
        CHECK(emq_lease_script_text(i, NULL) == text);
        CHECK(count_of(emq_lease_script_key, i) == keys[i] && count_of(emq_lease_script_arg, i) == args[i]);
    }
    text = emq_lease_script_text(0, &len);
    CHECK(len > 12 && memcmp(text, "local leases", 12) == 0);
    CHECK(is_text(emq_lease_script_key(1, 0, &len), &len, "the lease key {emq}:leases"));
    CHECK(is_text(emq_lease_script_arg(1, 3, &len), &len, "node") && is_text(emq_lease_script_arg(2, 2, &len), &len, "node"));
    CHECK(is_text(emq_lease_script_arg(0, 3, &len), &len, "nodes (1024)"));
    len = 77;
    CHECK(emq_lease_script_name(3, &len) == NULL && emq_lease_script_text(3, &len) == NULL && len == 77);
    CHECK(emq_lease_script_key(3, 0, NULL) == NULL && emq_lease_script_arg(3, 0, NULL) == NULL);
    CHECK(is_text(emq_lease_protocol(&len), &len, "emq-lease/3") && emq_lease_protocol(NULL) != NULL);
    CHECK(EMQ_LEASE_NODES == EMQ_MAX_NODE + 1 && EMQ_LEASE_MARGIN_MS < EMQ_LEASE_TTL_MS && EMQ_LEASE_REPLICAS == 1);

    /* The one lease key, a static text in the reserve's slot (its hash tag). */
    uint8_t key[EMQ_MAX_KEY_LEN];
    uint16_t reserve_slot = 0, slot = 1;
    text = emq_lease_key(&len);
    CHECK(is_text(text, &len, "{emq}:leases") && emq_lease_key(NULL) == text);
    CHECK(emq_slot(text, len, &slot) == BRANDED_OK);
    CHECK(emq_reserve((const uint8_t *)"version", 7, key, sizeof key, &len) == BRANDED_OK);
    CHECK(emq_slot(key, len, &reserve_slot) == BRANDED_OK && slot == reserve_slot);

    /* Replies: {node, previous mark}, 1/0, and the refusal among error replies. */
    uint16_t node = 0;
    int64_t previous = 0;
    CHECK(emq_parse_acquire(1023, T1, &node, &previous) == BRANDED_OK && node == 1023 && previous == T1);
    CHECK(emq_parse_acquire(4, -1, &node, &previous) == BRANDED_OK && node == 4 && previous == -1);
    node = 99;
    previous = 99;
    CHECK(emq_parse_acquire(1024, -1, &node, &previous) == BRANDED_ERR_RANGE);
    CHECK(emq_parse_acquire(-1, -1, &node, &previous) == BRANDED_ERR_RANGE);
    CHECK(emq_parse_acquire(0, -2, &node, &previous) == BRANDED_ERR_RANGE);
    CHECK(emq_parse_acquire(0, 1704067200000LL + (1LL << 41), &node, &previous) == BRANDED_ERR_RANGE);
    CHECK(node == 99 && previous == 99); /* outputs only on BRANDED_OK */
    CHECK(emq_parse_acquire(0, -1, NULL, &previous) == EMQ_ERR_NULL);
    CHECK(emq_parse_acquire(0, -1, &node, NULL) == EMQ_ERR_NULL);

    CHECK(emq_parse_renewal(1) == BRANDED_OK);
    CHECK(emq_parse_renewal(0) == EMQ_ERR_NODE);
    CHECK(emq_parse_renewal(2) == BRANDED_ERR_RANGE && emq_parse_renewal(-1) == BRANDED_ERR_RANGE);

    /* WAIT's reply: at least the replicas wanted, fewer (node), never negative (range). */
    CHECK(emq_parse_wait(1, EMQ_LEASE_REPLICAS) == BRANDED_OK && emq_parse_wait(2, 1) == BRANDED_OK);
    CHECK(emq_parse_wait(0, 0) == BRANDED_OK && emq_parse_wait(3, 2) == BRANDED_OK);
    CHECK(emq_parse_wait(0, 1) == EMQ_ERR_NODE && emq_parse_wait(1, 2) == EMQ_ERR_NODE);
    CHECK(emq_parse_wait(-1, 1) == BRANDED_ERR_RANGE && emq_parse_wait(-1, 0) == BRANDED_ERR_RANGE);

    const char *refusal = "EMQLEASE every node is leased", *prefixed = "ERR EMQLEASE every node is leased";
    const char *noscript = "NOSCRIPT No matching script. Please use EVAL.";
    CHECK(emq_parse_acquire_error((const uint8_t *)refusal, strlen(refusal)) == EMQ_ERR_NODE);
    CHECK(emq_parse_acquire_error((const uint8_t *)prefixed, strlen(prefixed)) == EMQ_ERR_NODE);
    CHECK(emq_parse_acquire_error((const uint8_t *)noscript, strlen(noscript)) == EMQ_ERR_VALKEY);
    CHECK(emq_parse_acquire_error((const uint8_t *)refusal, strlen(refusal) - 1) == EMQ_ERR_VALKEY);
    CHECK(emq_parse_acquire_error((const uint8_t *)"\xff\xfe", 2) == EMQ_ERR_VALKEY);
    CHECK(emq_parse_acquire_error(NULL, 0) == EMQ_ERR_VALKEY);
    CHECK(emq_parse_acquire_error(NULL, 5) == EMQ_ERR_NULL);
    CHECK(strcmp(emq_status_name(EMQ_ERR_VALKEY), "valkey") == 0);

    CHECK(emq_lease_terms_check(EMQ_LEASE_TTL_MS, EMQ_LEASE_MARGIN_MS) == BRANDED_OK);
    CHECK(emq_lease_terms_check(3, 1) == BRANDED_OK);
    CHECK(emq_lease_terms_check(30000, 0) == BRANDED_ERR_RANGE);
    CHECK(emq_lease_terms_check(10, 10) == BRANDED_ERR_RANGE);
    CHECK(emq_lease_terms_check(0, 0) == BRANDED_ERR_RANGE);
    CHECK(emq_lease_terms_check(86400001, 0) == BRANDED_ERR_RANGE);

    /* The WAIT timeout of the terms; refused terms write nothing. */
    uint64_t wait = 0;
    CHECK(emq_lease_wait_ms(EMQ_LEASE_TTL_MS, EMQ_LEASE_MARGIN_MS, &wait) == BRANDED_OK && wait == 2500);
    CHECK(emq_lease_wait_ms(3000, 500, &wait) == BRANDED_OK && wait == 250);
    CHECK(emq_lease_wait_ms(3, 1, &wait) == BRANDED_OK && wait == 1);
    CHECK(emq_lease_wait_ms(10, 10, &wait) == BRANDED_ERR_RANGE && wait == 1);
    CHECK(emq_lease_wait_ms(30000, 5000, NULL) == EMQ_ERR_NULL);

    /* Starting a minter: the reply's and the terms' refusals, nothing written. */
    emq_leased_minter *m = NULL;
    CHECK(emq_leased_minter_start(1024, -1, T1, 0, 30000, 5000, &m) == BRANDED_ERR_RANGE);
    CHECK(emq_leased_minter_start(1, -2, T1, 0, 30000, 5000, &m) == BRANDED_ERR_RANGE);
    CHECK(emq_leased_minter_start(1, -1, T1, 0, 30000, 30000, &m) == BRANDED_ERR_RANGE);
    CHECK(emq_leased_minter_start(1, 1704067200000LL + (1LL << 41) - 1, T1, 0, 30000, 5000, &m) == BRANDED_ERR_RANGE);
    CHECK(m == NULL);
    CHECK(emq_leased_minter_start(1, -1, T1, 0, 30000, 5000, NULL) == EMQ_ERR_NULL);

    /* The hand-over: the previous owner's clock ran 5 s ahead, so its mark is in
     * our future; the first id still sorts after it, on the leased node, seq 0. */
    uint64_t s = 0, t = 0, mark = 0, hw = 0, fence = 0;
    uint64_t prev_mark = (uint64_t)T1 + 5000 + 30000;
    CHECK(emq_leased_minter_start(3, (int64_t)prev_mark, T1, 0, 30000, 5000, &m) == BRANDED_OK && m != NULL);
    CHECK(emq_leased_minter_node(m, &node) == BRANDED_OK && node == 3);
    CHECK(emq_leased_minter_high_water(m, &hw) == BRANDED_OK && hw == prev_mark); /* one before its start */
    CHECK(emq_leased_minter_next_at(m, T1, 0, &s) == BRANDED_OK);
    CHECK(branded_unix_ms(s) == prev_mark + 1 && emq_node(s) == 3 && emq_seq(s) == 0);
    CHECK(emq_leased_minter_next_at(m, T1 - 60000, 0, &t) == BRANDED_OK && t == s + 1); /* an earlier clock: on */
    CHECK(emq_leased_minter_high_water(m, &hw) == BRANDED_OK && hw == prev_mark + 1);
    emq_leased_minter_free(m);
    m = NULL;

    /* The fence: sent + ttl - margin on the monotonic clock, whatever the wall clock says. */
    CHECK(emq_leased_minter_start(1, -1, T1, 0, 30000, 5000, &m) == BRANDED_OK);
    CHECK(emq_leased_minter_fence_ms(m, &fence) == BRANDED_OK && fence == 25000);
    CHECK(emq_leased_minter_next_at(m, T1, 24999, &s) == BRANDED_OK && branded_unix_ms(s) == (uint64_t)T1);
    t = 42;
    CHECK(emq_leased_minter_next_at(m, T1, 25000, &t) == EMQ_ERR_NODE && t == 42);
    CHECK(emq_leased_minter_next_at(m, T1 - 60000, 25000, &t) == EMQ_ERR_NODE);
    CHECK(emq_leased_minter_next_i64(m, T1, 25000) == -EMQ_ERR_NODE);
    /* A renewal sent at 20 s and accepted moves the fence to 45 s and raises the mark. */
    CHECK(emq_leased_minter_next_mark(m, T1 + 20000, &mark) == BRANDED_OK && mark == (uint64_t)T1 + 20000 + 30000);
    CHECK(emq_leased_minter_renewed(m, 20000, mark) == BRANDED_OK);
    CHECK(emq_leased_minter_fence_ms(m, &fence) == BRANDED_OK && fence == 45000);
    CHECK(emq_leased_minter_next_at(m, T1 + 20000, 44999, &t) == BRANDED_OK && t > s);
    CHECK(emq_leased_minter_next_i64(m, T1 + 20000, 44999) == (int64_t)t + 1);
    CHECK(emq_leased_minter_next_at(m, T1 + 20000, 45000, &t) == EMQ_ERR_NODE);
    CHECK(emq_leased_minter_renewed(m, 10000, mark) == BRANDED_OK); /* an older renewal: the fence stays */
    CHECK(emq_leased_minter_fence_ms(m, &fence) == BRANDED_OK && fence == 45000);
    CHECK(emq_leased_minter_stop(m) == BRANDED_OK);
    CHECK(emq_leased_minter_fence_ms(m, &fence) == BRANDED_OK && fence == 0);
    CHECK(emq_leased_minter_next_at(m, T1 + 21000, 21000, &t) == EMQ_ERR_NODE);
    CHECK(emq_leased_minter_high_water(m, &hw) == BRANDED_OK && hw == (uint64_t)T1 + 20000);
    emq_leased_minter_free(m);
    m = NULL;

    /* The mark: a burst at one clock reading borrows milliseconds up to the mark, never past it. */
    CHECK(emq_leased_minter_start(1, -1, T1, 0, 3, 1, &m) == BRANDED_OK);
    size_t n = 0;
    while (emq_leased_minter_next_at(m, T1, 0, &s) == BRANDED_OK) n++;
    CHECK(n == 4 * 4096); /* the ms of T1 to T1+3 = the mark */
    CHECK(branded_unix_ms(s) == (uint64_t)T1 + 3 && emq_seq(s) == 4095);
    CHECK(emq_leased_minter_next_at(m, T1, 0, &t) == EMQ_ERR_NODE);
    CHECK(emq_leased_minter_high_water(m, &hw) == BRANDED_OK && hw == (uint64_t)T1 + 3);
    CHECK(emq_leased_minter_next_mark(m, T1, &mark) == BRANDED_OK && mark == (uint64_t)T1 + 6);
    CHECK(emq_leased_minter_renewed(m, 0, mark) == BRANDED_OK); /* the renewal raises the mark: minting goes on */
    CHECK(emq_leased_minter_next_at(m, T1, 0, &t) == BRANDED_OK && branded_unix_ms(t) == (uint64_t)T1 + 4);
    emq_leased_minter_free(m);
    m = NULL;

    /* The system clocks: a lease taken now, on the library's monotonic clock. */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t now_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
    uint64_t mono = emq_monotonic_ms();
    CHECK(emq_leased_minter_start(9, -1, now_ms, mono, 30000, 5000, &m) == BRANDED_OK);
    CHECK(emq_leased_minter_next(m, &s) == BRANDED_OK && emq_node(s) == 9);
    CHECK(emq_leased_minter_next(m, &t) == BRANDED_OK && t > s);
    CHECK(emq_monotonic_ms() >= mono);

    /* NULL handles and outputs. */
    CHECK(emq_leased_minter_node(NULL, &node) == EMQ_ERR_NULL && emq_leased_minter_node(m, NULL) == EMQ_ERR_NULL);
    CHECK(emq_leased_minter_next(NULL, &s) == EMQ_ERR_NULL && emq_leased_minter_next(m, NULL) == EMQ_ERR_NULL);
    CHECK(emq_leased_minter_next_at(NULL, T1, 0, &s) == EMQ_ERR_NULL);
    CHECK(emq_leased_minter_next_at(m, now_ms, mono, NULL) == EMQ_ERR_NULL);
    CHECK(emq_leased_minter_next_i64(NULL, T1, 0) == -EMQ_ERR_NULL);
    CHECK(emq_leased_minter_next_mark(NULL, T1, &mark) == EMQ_ERR_NULL);
    CHECK(emq_leased_minter_next_mark(m, T1, NULL) == EMQ_ERR_NULL);
    CHECK(emq_leased_minter_renewed(NULL, 0, 0) == EMQ_ERR_NULL && emq_leased_minter_stop(NULL) == EMQ_ERR_NULL);
    CHECK(emq_leased_minter_high_water(NULL, &hw) == EMQ_ERR_NULL && emq_leased_minter_high_water(m, NULL) == EMQ_ERR_NULL);
    CHECK(emq_leased_minter_fence_ms(NULL, &fence) == EMQ_ERR_NULL && emq_leased_minter_fence_ms(m, NULL) == EMQ_ERR_NULL);
    emq_leased_minter_free(m);
    emq_leased_minter_free(NULL);
}

/* The outcome emq_read_lease_error reads in the C string `reply`, or -1 for a refusal. */
static int read_error(const char *reply, int asked) {
    emq_lease_outcome outcome = EMQ_OUTCOME_COUNTED;
    return emq_read_lease_error((const uint8_t *)reply, strlen(reply), asked, &outcome) == BRANDED_OK ? (int)outcome : -1;
}

/* The lease keeper's decisions: a write's error reply read, the node a
 * redirect names, and a keeper through the first acquire, a renewal, expiry
 * and a release. */
static void keeper(void) {
    size_t len = 0;

    /* The enumerations' names, the core's, by value; NULL past the end. */
    const char *outcomes[] = {"counted", "unacknowledged", "gone", "leased", "ask", "moved", "not_run", "fault"};
    for (int i = 0; i <= EMQ_OUTCOME_FAULT; i++) CHECK(is_text(emq_lease_outcome_name(i, &len), &len, outcomes[i]));
    CHECK(emq_lease_outcome_name(EMQ_OUTCOME_FAULT + 1, &len) == NULL && emq_lease_outcome_name(-1, NULL) == NULL);
    CHECK(is_text(emq_lease_action_name(EMQ_ACTION_GIVE_UP, &len), &len, "give_up"));
    CHECK(is_text(emq_lease_action_name(EMQ_ACTION_PUBLISH, &len), &len, "publish"));
    CHECK(is_text(emq_lease_action_name(EMQ_ACTION_RELEASED, &len), &len, "released"));
    CHECK(emq_lease_action_name(EMQ_ACTION_RELEASED + 1, &len) == NULL);
    CHECK(is_text(emq_lease_phase_name(EMQ_PHASE_PENDING, &len), &len, "pending"));
    CHECK(is_text(emq_lease_phase_name(EMQ_PHASE_RELEASING, &len), &len, "releasing"));
    CHECK(emq_lease_phase_name(EMQ_PHASE_RELEASING + 1, &len) == NULL);
    CHECK(is_text(emq_lease_next_name(EMQ_NEXT_EXPIRED, &len), &len, "expired"));
    CHECK(is_text(emq_lease_next_name(EMQ_NEXT_RELEASE, &len), &len, "release"));
    CHECK(emq_lease_next_name(EMQ_NEXT_RELEASE + 1, &len) == NULL);

    /* Error replies: the protocol's refusal, redirects (followed once), not run, anything else. */
    CHECK(read_error("ERR EMQLEASE every node is leased", 0) == EMQ_OUTCOME_LEASED);
    CHECK(read_error("ASK 9051 10.0.0.2:7001", 0) == EMQ_OUTCOME_ASK);
    CHECK(read_error("ASK 9051 10.0.0.2:7001", 1) == EMQ_OUTCOME_FAULT);
    CHECK(read_error("MOVED 9051 10.0.0.2:7001", 1) == EMQ_OUTCOME_MOVED);
    CHECK(read_error("READONLY You can't write against a read only replica.", 0) == EMQ_OUTCOME_MOVED);
    CHECK(read_error("CLUSTERDOWN The cluster is down", 0) == EMQ_OUTCOME_NOT_RUN);
    CHECK(read_error("NOREPLICAS Not enough good replicas to write.", 0) == EMQ_OUTCOME_NOT_RUN);
    CHECK(read_error("OOM command not allowed when used memory > 'maxmemory'.", 0) == EMQ_OUTCOME_NOT_RUN);
    CHECK(read_error("MISCONF Errors writing to the AOF file", 0) == EMQ_OUTCOME_NOT_RUN);
    CHECK(read_error("ERR Error running script", 0) == EMQ_OUTCOME_FAULT);
    CHECK(read_error("\xff\xfe", 0) == EMQ_OUTCOME_FAULT && read_error("", 0) == EMQ_OUTCOME_FAULT);
    emq_lease_outcome outcome = EMQ_OUTCOME_GONE;
    CHECK(emq_read_lease_error(NULL, 0, 0, &outcome) == BRANDED_OK && outcome == EMQ_OUTCOME_FAULT);
    outcome = EMQ_OUTCOME_GONE;
    CHECK(emq_read_lease_error(NULL, 5, 0, &outcome) == EMQ_ERR_NULL && outcome == EMQ_OUTCOME_GONE);
    CHECK(emq_read_lease_error((const uint8_t *)"ASK", 3, 0, NULL) == EMQ_ERR_NULL);
    CHECK(emq_lease_outcome_of_write(1, 1) == EMQ_OUTCOME_COUNTED);
    CHECK(emq_lease_outcome_of_write(1, 0) == EMQ_OUTCOME_UNACKNOWLEDGED);
    CHECK(emq_lease_outcome_of_write(0, 1) == EMQ_OUTCOME_GONE && emq_lease_outcome_of_write(0, 0) == EMQ_OUTCOME_GONE);

    /* The node a redirect names: its host a range of the text (none: the connection's host). */
    emq_redirect to;
    const char *ask = "ASK 9051 10.0.0.2:7001", *v6 = "MOVED 12 [2001:db8::1]:6379", *bare = "MOVED 9051 :7001";
    CHECK(emq_parse_redirect((const uint8_t *)ask, strlen(ask), &to) == BRANDED_OK);
    CHECK(to.ask == 1 && to.slot == 9051 && to.port == 7001 && to.host_len == 8 && memcmp(ask + to.host_offset, "10.0.0.2", 8) == 0);
    CHECK(emq_parse_redirect((const uint8_t *)v6, strlen(v6), &to) == BRANDED_OK);
    CHECK(to.ask == 0 && to.slot == 12 && to.port == 6379 && to.host_len == 11 && memcmp(v6 + to.host_offset, "2001:db8::1", 11) == 0);
    CHECK(emq_parse_redirect((const uint8_t *)bare, strlen(bare), &to) == BRANDED_OK);
    CHECK(to.host_offset == 0 && to.host_len == 0 && to.port == 7001);
    const char *slot_past = "MOVED 16384 10.0.0.2:7001", *other = "CLUSTERDOWN The cluster is down";
    CHECK(emq_parse_redirect((const uint8_t *)slot_past, strlen(slot_past), &to) == EMQ_ERR_VALKEY);
    CHECK(emq_parse_redirect((const uint8_t *)other, strlen(other), &to) == EMQ_ERR_VALKEY);
    CHECK(to.port == 7001); /* outputs only on BRANDED_OK */
    CHECK(emq_parse_redirect((const uint8_t *)ask, strlen(ask), NULL) == EMQ_ERR_NULL);
    CHECK(emq_parse_redirect(NULL, 3, &to) == EMQ_ERR_NULL);

    /* The schedule of the terms; refused terms write nothing. */
    uint64_t ms = 7;
    CHECK(emq_lease_renew_every_ms(EMQ_LEASE_TTL_MS, EMQ_LEASE_MARGIN_MS, &ms) == BRANDED_OK && ms == 10000);
    CHECK(emq_lease_renew_every_ms(3, 1, &ms) == BRANDED_OK && ms == 1);
    CHECK(emq_lease_retry_ms(EMQ_LEASE_TTL_MS, EMQ_LEASE_MARGIN_MS, &ms) == BRANDED_OK && ms == 250);
    CHECK(emq_lease_retry_ms(2000, 333, &ms) == BRANDED_OK && ms == 100);
    CHECK(emq_lease_retry_ms(3, 1, &ms) == BRANDED_OK && ms == 10);
    CHECK(emq_lease_retry_ms(10, 10, &ms) == BRANDED_ERR_RANGE && emq_lease_renew_every_ms(0, 0, &ms) == BRANDED_ERR_RANGE);
    CHECK(ms == 10);
    CHECK(emq_lease_retry_ms(3, 1, NULL) == EMQ_ERR_NULL && emq_lease_renew_every_ms(3, 1, NULL) == EMQ_ERR_NULL);

    /* A keeper: bad terms are the range gate, and nothing is made. */
    emq_lease_keeper *k = NULL;
    CHECK(emq_lease_keeper_new(30000, 30000, 0, &k) == BRANDED_ERR_RANGE && k == NULL);
    CHECK(emq_lease_keeper_new(0, 0, 0, &k) == BRANDED_ERR_RANGE && k == NULL);
    CHECK(emq_lease_keeper_new(3000, 500, 0, NULL) == EMQ_ERR_NULL);

    /* The first acquire: not run (retried), then counted; renewed; expired a TTL after the last answer. */
    emq_lease_next next = EMQ_NEXT_RENEW;
    emq_lease_action action = EMQ_ACTION_WAIT;
    emq_lease_phase phase = EMQ_PHASE_HELD;
    uint64_t after = 1;
    CHECK(emq_lease_keeper_new(3000, 500, 0, &k) == BRANDED_OK && k != NULL);
    CHECK(emq_lease_keeper_phase(k, &phase) == BRANDED_OK && phase == EMQ_PHASE_STARTING);
    CHECK(emq_lease_keeper_next(k, 0, &next) == BRANDED_OK && next == EMQ_NEXT_ACQUIRE);
    CHECK(emq_lease_keeper_settle(k, EMQ_OUTCOME_NOT_RUN, 0, 0, &action, &after) == BRANDED_OK);
    CHECK(action == EMQ_ACTION_RETRY && after == 150);
    CHECK(emq_lease_keeper_settle(k, EMQ_OUTCOME_COUNTED, 150, 160, &action, &after) == BRANDED_OK);
    CHECK(action == EMQ_ACTION_PUBLISH && after == 1000);
    CHECK(emq_lease_keeper_phase(k, &phase) == BRANDED_OK && phase == EMQ_PHASE_HELD);
    CHECK(emq_lease_keeper_next(k, 1160, &next) == BRANDED_OK && next == EMQ_NEXT_RENEW);
    CHECK(emq_lease_keeper_settle(k, EMQ_OUTCOME_UNACKNOWLEDGED, 1160, 1170, &action, &after) == BRANDED_OK);
    CHECK(action == EMQ_ACTION_WAIT && after == 150);
    /* An outcome the enumeration lacks: the range gate, nothing written, the keeper as it was. */
    CHECK(emq_lease_keeper_settle(k, EMQ_OUTCOME_FAULT + 1, 0, 0, &action, &after) == BRANDED_ERR_RANGE);
    CHECK(emq_lease_keeper_settle(k, -1, 0, 0, &action, &after) == BRANDED_ERR_RANGE);
    CHECK(action == EMQ_ACTION_WAIT && after == 150);
    CHECK(emq_lease_keeper_settle(k, EMQ_OUTCOME_GONE, 0, 0, NULL, &after) == EMQ_ERR_NULL);
    CHECK(emq_lease_keeper_settle(k, EMQ_OUTCOME_GONE, 0, 0, &action, NULL) == EMQ_ERR_NULL);
    CHECK(emq_lease_keeper_phase(k, &phase) == BRANDED_OK && phase == EMQ_PHASE_HELD);
    CHECK(emq_lease_keeper_next(k, 4159, &next) == BRANDED_OK && next == EMQ_NEXT_RENEW);
    CHECK(emq_lease_keeper_next(k, 4160, &next) == BRANDED_OK && next == EMQ_NEXT_EXPIRED);
    CHECK(emq_lease_keeper_phase(k, &phase) == BRANDED_OK && phase == EMQ_PHASE_UNLEASED);
    CHECK(emq_lease_keeper_next(k, 4160, NULL) == EMQ_ERR_NULL && emq_lease_keeper_phase(k, NULL) == EMQ_ERR_NULL);
    emq_lease_keeper_free(k);
    k = NULL;

    /* A cluster that stays down: retried for a TTL, then the first acquire gives up with the node gate. */
    CHECK(emq_lease_keeper_new(600, 100, 1000, &k) == BRANDED_OK);
    CHECK(emq_lease_keeper_settle(k, EMQ_OUTCOME_NOT_RUN, 1000, 1599, &action, &after) == BRANDED_OK);
    CHECK(action == EMQ_ACTION_RETRY && after == 30);
    CHECK(emq_lease_keeper_settle(k, EMQ_OUTCOME_NOT_RUN, 1599, 1600, &action, &after) == BRANDED_OK);
    CHECK(action == EMQ_ACTION_GIVE_UP && after == 0);
    CHECK(emq_lease_keeper_phase(k, &phase) == BRANDED_OK && phase == EMQ_PHASE_UNLEASED);
    emq_lease_keeper_free(k);
    k = NULL;

    /* An ASK is followed once; asked again, the first acquire gives up (a fault: the host's refusal). */
    CHECK(emq_lease_keeper_new(EMQ_LEASE_TTL_MS, EMQ_LEASE_MARGIN_MS, 0, &k) == BRANDED_OK);
    CHECK(emq_lease_keeper_settle(k, EMQ_OUTCOME_ASK, 0, 1, &action, &after) == BRANDED_OK);
    CHECK(action == EMQ_ACTION_FOLLOW && after == 0);
    CHECK(emq_lease_keeper_settle(k, EMQ_OUTCOME_ASK, 1, 2, &action, &after) == BRANDED_OK && action == EMQ_ACTION_GIVE_UP);
    emq_lease_keeper_free(k);
    k = NULL;

    /* A release through the keeper: an ASK followed, then it ran (handed back). */
    CHECK(emq_lease_keeper_new(3000, 500, 0, &k) == BRANDED_OK);
    CHECK(emq_lease_keeper_settle(k, EMQ_OUTCOME_COUNTED, 0, 1, &action, &after) == BRANDED_OK && action == EMQ_ACTION_PUBLISH);
    CHECK(emq_lease_keeper_release(k) == BRANDED_OK);
    CHECK(emq_lease_keeper_phase(k, &phase) == BRANDED_OK && phase == EMQ_PHASE_RELEASING);
    CHECK(emq_lease_keeper_next(k, 10, &next) == BRANDED_OK && next == EMQ_NEXT_RELEASE);
    CHECK(emq_lease_keeper_settle(k, EMQ_OUTCOME_ASK, 10, 11, &action, &after) == BRANDED_OK);
    CHECK(action == EMQ_ACTION_FOLLOW && after == 0);
    CHECK(emq_lease_keeper_settle(k, EMQ_OUTCOME_COUNTED, 10, 12, &action, &after) == BRANDED_OK);
    CHECK(action == EMQ_ACTION_RELEASED && after == 0);
    CHECK(emq_lease_keeper_phase(k, &phase) == BRANDED_OK && phase == EMQ_PHASE_UNLEASED);
    /* Moved (sent again at once), not run (after the retry delay), three sends at most. */
    CHECK(emq_lease_keeper_release(k) == BRANDED_OK);
    CHECK(emq_lease_keeper_settle(k, EMQ_OUTCOME_MOVED, 20, 21, &action, &after) == BRANDED_OK);
    CHECK(action == EMQ_ACTION_REROUTE && after == 0);
    CHECK(emq_lease_keeper_settle(k, EMQ_OUTCOME_NOT_RUN, 21, 22, &action, &after) == BRANDED_OK);
    CHECK(action == EMQ_ACTION_RETRY && after == 150);
    CHECK(emq_lease_keeper_settle(k, EMQ_OUTCOME_NOT_RUN, 172, 173, &action, &after) == BRANDED_OK);
    CHECK(action == EMQ_ACTION_GIVE_UP && after == 0);
    CHECK(emq_lease_keeper_phase(k, &phase) == BRANDED_OK && phase == EMQ_PHASE_UNLEASED);
    /* Gone: the release ran (no longer the owner's); anything else gives up at once. */
    CHECK(emq_lease_keeper_release(k) == BRANDED_OK);
    CHECK(emq_lease_keeper_settle(k, EMQ_OUTCOME_GONE, 30, 31, &action, &after) == BRANDED_OK && action == EMQ_ACTION_RELEASED);
    CHECK(emq_lease_keeper_release(k) == BRANDED_OK);
    CHECK(emq_lease_keeper_settle(k, EMQ_OUTCOME_FAULT, 40, 41, &action, &after) == BRANDED_OK && action == EMQ_ACTION_GIVE_UP);
    emq_lease_keeper_free(k);

    /* The refusals the first acquire gives up with: the node gate, or another's (OK). */
    CHECK(emq_lease_refusal(EMQ_OUTCOME_NOT_RUN) == EMQ_ERR_NODE && emq_lease_refusal(EMQ_OUTCOME_MOVED) == EMQ_ERR_NODE);
    CHECK(emq_lease_refusal(EMQ_OUTCOME_LEASED) == EMQ_ERR_NODE);
    CHECK(emq_lease_refusal(EMQ_OUTCOME_FAULT) == BRANDED_OK && emq_lease_refusal(EMQ_OUTCOME_UNACKNOWLEDGED) == BRANDED_OK);
    CHECK(emq_lease_refusal(EMQ_OUTCOME_FAULT + 1) == BRANDED_ERR_RANGE && emq_lease_refusal(-1) == BRANDED_ERR_RANGE);
    const uint8_t *detail = emq_lease_refusal_detail(EMQ_OUTCOME_NOT_RUN, &len);
    CHECK(detail != NULL && len > 20 && memcmp(detail, "the reserve did not run", 23) == 0);
    detail = emq_lease_refusal_detail(EMQ_OUTCOME_LEASED, &len);
    CHECK(detail != NULL && len > 20 && memcmp(detail, "every node", 10) == 0);
    CHECK(emq_lease_refusal_detail(EMQ_OUTCOME_FAULT, &len) == NULL && emq_lease_refusal_detail(99, NULL) == NULL);

    /* NULL handles. */
    CHECK(emq_lease_keeper_next(NULL, 0, &next) == EMQ_ERR_NULL && emq_lease_keeper_phase(NULL, &phase) == EMQ_ERR_NULL);
    CHECK(emq_lease_keeper_settle(NULL, EMQ_OUTCOME_COUNTED, 0, 0, &action, &after) == EMQ_ERR_NULL);
    CHECK(emq_lease_keeper_release(NULL) == EMQ_ERR_NULL);
    emq_lease_keeper_free(NULL);
}

/* The node of a minted id, or -1. */
static int node_of(const char id[14]) {
    char ns[3];
    uint64_t s;
    return branded_decode(id, 14, ns, &s) == BRANDED_OK ? (int)emq_node(s) : -1;
}

/* The process-wide minter: its node from EMQ_NODE, held for the process's
 * life; a child forked after minting is refused until it takes its own node. */
static void process(void) {
    char dir[64], id[14];
    snprintf(dir, sizeof dir, "/tmp/emq-id-abi-test-%d", (int)getpid());
    setenv("EMQ_NODE_DIR", dir, 1);
    setenv("EMQ_NODE", "5", 1);
    uint16_t node = 0;
    uint32_t pid = 0;
    emq_node_source source = EMQ_NODE_SET;
    int status = -1;

    /* Without EMQ_NODE a node is drawn, and the source says so: the library
     * writes nothing to stderr, the host reads EMQ_NODE_DRAWN and warns its
     * own way. Forked before this process takes a node, so the child has none. */
    fflush(NULL);
    pid_t drawn = fork();
    if (drawn == 0) {
        unsetenv("EMQ_NODE");
        int bad = emq_process_node(&node, &source, &pid) != BRANDED_OK;
        bad += source != EMQ_NODE_DRAWN || node > EMQ_MAX_NODE;
        bad += emq_mint("JOB", id) != BRANDED_OK || node_of(id) != node;
        _exit(bad);
    }
    CHECK(drawn > 0 && waitpid(drawn, &status, 0) == drawn && WIFEXITED(status) && WEXITSTATUS(status) == 0);

    CHECK(emq_mint("JOB", id) == BRANDED_OK && node_of(id) == 5);
    CHECK(emq_mint("job", id) == BRANDED_ERR_RANGE);
    CHECK(emq_mint(NULL, id) == EMQ_ERR_NULL && emq_mint("JOB", NULL) == EMQ_ERR_NULL);
    CHECK(emq_process_node(&node, &source, &pid) == BRANDED_OK);
    CHECK(node == 5 && source == EMQ_NODE_FROM_ENV && pid == (uint32_t)getpid());
    CHECK(emq_process_node(NULL, &source, &pid) == EMQ_ERR_NULL);
    CHECK(emq_process_set_node(5) == BRANDED_OK);     /* the node it holds */
    CHECK(emq_process_set_node(6) == EMQ_ERR_NODE);   /* a process keeps its node */
    CHECK(emq_process_set_node(1024) == BRANDED_ERR_RANGE);

    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        /* The child inherited node 5 and the parent's state: refused, naming the parent. */
        int bad = 0;
        bad += emq_mint("JOB", id) != EMQ_ERR_NODE;
        bad += emq_process_node(&node, &source, &pid) != EMQ_ERR_NODE;
        bad += node != 5 || pid != (uint32_t)getppid();
        bad += emq_process_set_node(6) != BRANDED_OK;
        bad += emq_mint("JOB", id) != BRANDED_OK || node_of(id) != 6;
        _exit(bad);
    }
    CHECK(child > 0 && waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(emq_mint("JOB", id) == BRANDED_OK && node_of(id) == 5); /* the parent mints on */

    /* A forked child that never mints holds no share of its parent's claim:
     * a holder of node 7 forks an idle child and dies; node 7 is free at once. */
    pid_t holder = fork();
    if (holder == 0) {
        int bad = emq_process_set_node(7) != BRANDED_OK;
        pid_t idle = fork();
        if (idle == 0) {
            sleep(1); /* alive, never mints, while the next claimant asks */
            _exit(0);
        }
        _exit(bad);
    }
    CHECK(holder > 0 && waitpid(holder, &status, 0) == holder && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    pid_t next = fork();
    if (next == 0) _exit(emq_process_set_node(7) != BRANDED_OK);
    CHECK(next > 0 && waitpid(next, &status, 0) == next && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void names(void) {
    const char *want[] = {"ok",   "length", "namespace", "charset", "range", "queue",  "kind",
                          "null", "buffer", "panic",     "self_check", "node", "valkey"};
    for (int i = 0; i <= EMQ_ERR_VALKEY; i++) CHECK(strcmp(emq_status_name(i), want[i]) == 0);
    CHECK(strcmp(emq_status_name(-1), "unknown") == 0);
    CHECK(strcmp(emq_status_name(99), "unknown") == 0);
    CHECK(emq_self_check() == BRANDED_OK);
}

/* What each gate of the core must be in C. A gate the core adds fails here
 * until it has a row: the walk goes over the core's list, not this table. */
static const struct { const char *gate; branded_status status; } C_STATUS[] = {
    {"length", BRANDED_ERR_LENGTH}, {"namespace", BRANDED_ERR_NAMESPACE}, {"charset", BRANDED_ERR_CHARSET},
    {"range", BRANDED_ERR_RANGE},   {"queue", EMQ_ERR_QUEUE},             {"kind", EMQ_ERR_KIND},
    {"node", EMQ_ERR_NODE},
};

static void gates(void) {
    size_t n = emq_gate_count();
    CHECK(n == sizeof C_STATUS / sizeof C_STATUS[0]);
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        const uint8_t *name = emq_gate_name(i, &len);
        CHECK(name != NULL && len > 0);
        int mapped = 0;
        for (size_t j = 0; j < sizeof C_STATUS / sizeof C_STATUS[0]; j++) {
            if (strlen(C_STATUS[j].gate) == len && memcmp(C_STATUS[j].gate, name, len) == 0) {
                mapped = 1;
                CHECK(emq_gate_status(i) == C_STATUS[j].status);
                CHECK(strcmp(emq_status_name(emq_gate_status(i)), C_STATUS[j].gate) == 0);
            }
        }
        if (!mapped) fprintf(stderr, "abi_test: the core's gate %.*s has no C status in this test\n", (int)len, (const char *)name);
        CHECK(mapped);
    }
    CHECK(emq_gate_name(n, NULL) == NULL);
    CHECK(emq_gate_status(n) == EMQ_ERR_NULL);

    size_t len = 0;
    const uint8_t *vectors = emq_self_check_vectors(&len);
    CHECK(vectors != NULL && len > 100 && memcmp(vectors, "decode ", 7) == 0 && vectors[len - 1] == '\n');
    CHECK(emq_self_check_vectors(NULL) == vectors);

    CHECK(emq_is_valid("USR0KHTOWnGLuC", BRANDED_LEN) == 1);
    CHECK(emq_is_valid("USR0KHTOWnGLu", 13) == 0);
    CHECK(emq_is_valid(NULL, 0) == 0);
    CHECK(emq_is_valid(NULL, 14) == 0);
    int order = 9;
    CHECK(emq_compare("USR0KHTOWnGLuC", 14, "USR0NgWEfAEJfs", 14, &order) == BRANDED_OK && order == -1);
    CHECK(emq_compare("USR0NgWEfAEJfs", 14, "USR0KHTOWnGLuC", 14, &order) == BRANDED_OK && order == 1);
    CHECK(emq_compare("USR0KHTOWnGLuC", 14, "USR0KHTOWnGLuC", 14, &order) == BRANDED_OK && order == 0);
    order = 9;
    CHECK(emq_compare("USR0KHTOWnGLu", 13, "usr0KHTOWnGLuC", 14, &order) == BRANDED_ERR_LENGTH && order == 9);
    CHECK(emq_compare("USR0KHTOWnGLuC", 14, "usr0KHTOWnGLuC", 14, &order) == BRANDED_ERR_NAMESPACE && order == 9);
    CHECK(emq_compare("USR0KHTOWnGLuC", 14, "USR0KHTOWnGLuC", 14, NULL) == EMQ_ERR_NULL);
    CHECK(EMQ_MAX_NODE == 1023 && BRANDED_LEN == 14 && BRANDED_EPOCH_MS == 1704067200000ULL);
}

int main(void) {
    gates();
    codec();
    codec_many();
    place();
    keyspace();
    mint();
    lease();
    keeper();
    process();
    names();
    printf("abi_test: %d passed, %d failed\n", checks - failures, failures);
    return failures != 0;
}
