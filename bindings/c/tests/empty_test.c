/* Empty inputs at the C ABI: every entry point that reads (pointer, length)
 * bytes, given no bytes three ways — NULL with length 0 (allowed wherever the
 * header says "NULL only with len 0"), a valid pointer with length 0, and a
 * pointer one past the end of an array with length 0 (what an empty slice of
 * a host often is) — answers the same status and the same outputs each way,
 * and writes its outputs only on BRANDED_OK. Batches of none: zero keys, zero
 * ids (minted, decoded, encoded), keys and ids of length 0 with no data at all.
 *
 * Built like abi_test.c (-std=c11 -Wall -Wextra -Werror) against the
 * generated header and the static library, and run under valgrind memcheck:
 *   cargo build --release -p emq-id-c
 *   gcc -std=c11 -Wall -Wextra -Werror -g -I bindings/c/include bindings/c/tests/empty_test.c \
 *       target/release/libemqid.a -lpthread -ldl -lm -o target/c-tests/empty_test
 *   valgrind --error-exitcode=1 --leak-check=full -q target/c-tests/empty_test */
#include <stdio.h>
#include <string.h>

#include "emq_id.h"

#include "check.h"

#define WAYS 3
static const char one_byte[1] = {'{'};
static const char fourteen[14] = {'U', 'S', 'R', '0', 'K', 'H', 'T', 'O', 'W', 'n', 'G', 'L', 'u', 'C'};

/* The three empty inputs: NULL, a valid pointer, one past the end. */
static const char *empty(int way) {
    switch (way) {
    case 0:
        return NULL;
    case 1:
        return one_byte;
    default:
        return fourteen + sizeof fourteen;
    }
}
#define EMPTY_U8(way) ((const uint8_t *)empty(way))

static void codec(void) {
    for (int w = 0; w < WAYS; w++) {
        char ns[3] = {'#', '#', '#'};
        uint64_t s = 42;
        CHECK(branded_decode(empty(w), 0, ns, &s) == BRANDED_ERR_LENGTH);
        CHECK(ns[0] == '#' && s == 42); /* outputs only on BRANDED_OK */
        CHECK(emq_parse_i64(empty(w), 0) == -BRANDED_ERR_LENGTH);
        CHECK(emq_is_valid(empty(w), 0) == 0);

        int order = 7;
        CHECK(emq_compare(empty(w), 0, "USR0KHTOWnGLuC", 14, &order) == BRANDED_ERR_LENGTH);
        CHECK(emq_compare("USR0KHTOWnGLuC", 14, empty(w), 0, &order) == BRANDED_ERR_LENGTH);
        CHECK(emq_compare(empty(w), 0, empty(w), 0, &order) == BRANDED_ERR_LENGTH);
        CHECK(order == 7);

        /* Zero ids: nothing is read or written, whatever the pointers; the count is 0. */
        size_t lens[2] = {0, 0}, made = 99;
        uint64_t many[2] = {9, 9};
        char texts[14] = {'#'};
        CHECK(emq_decode_many(empty(w), lens, 0, many, &made) == BRANDED_OK && made == 0 && many[0] == 9);
        made = 99;
        CHECK(emq_decode_many(empty(w), NULL, 0, NULL, &made) == BRANDED_OK && made == 0);
        made = 99;
        CHECK(emq_encode_many(empty(w), NULL, 0, texts, &made) == BRANDED_OK && made == 0 && texts[0] == '#');
        /* Two empty ids: their lengths sum to 0, so `data` is read for no bytes; the first is the length gate. */
        made = 99;
        CHECK(emq_decode_many(empty(w), lens, 2, many, &made) == BRANDED_ERR_LENGTH && made == 0 && many[0] == 9);
    }
}

static void place(void) {
    for (int w = 0; w < WAYS; w++) {
        uint16_t slot = 99;
        CHECK(emq_slot(EMPTY_U8(w), 0, &slot) == BRANDED_OK && slot == 0);
        CHECK(emq_slot_i32(EMPTY_U8(w), 0) == 0);

        size_t off = 5, len = 5;
        CHECK(emq_hashtag(EMPTY_U8(w), 0, &off, &len) == BRANDED_OK && off == 0 && len == 0);

        /* Zero keys: nothing is read or written, whatever the pointers. */
        size_t lens[3] = {0, 0, 0};
        uint16_t slots[3] = {9, 9, 9};
        CHECK(emq_slot_many(EMPTY_U8(w), lens, 0, slots) == BRANDED_OK && slots[0] == 9);
        CHECK(emq_slot_many(EMPTY_U8(w), NULL, 0, NULL) == BRANDED_OK);
        /* Three empty keys: their lengths sum to 0, so `data` is read for no bytes. */
        CHECK(emq_slot_many(EMPTY_U8(w), lens, 3, slots) == BRANDED_OK);
        CHECK(slots[0] == 0 && slots[1] == 0 && slots[2] == 0);
    }
    /* Empty keys among others: each empty one is slot 0, the others keep theirs. */
    const char *data = "123456789" "emq:{orders}:pending";
    size_t lens[5] = {0, 9, 0, 20, 0};
    uint16_t slots[5], orders;
    CHECK(emq_slot_many((const uint8_t *)data, lens, 5, slots) == BRANDED_OK);
    CHECK(emq_slot((const uint8_t *)"orders", 6, &orders) == BRANDED_OK);
    CHECK(slots[0] == 0 && slots[1] == 12739 && slots[2] == 0 && slots[3] == orders && slots[4] == 0);
}

static void keyspace(void) {
    uint8_t out[EMQ_MAX_KEY_LEN];
    size_t len;
    emq_parsed_key parts;
    for (int w = 0; w < WAYS; w++) {
        const uint8_t *e = EMPTY_U8(w);
        len = 12345;
        CHECK(emq_key(e, 0, (const uint8_t *)"pending", 7, NULL, 0, out, sizeof out, &len) == EMQ_ERR_QUEUE);
        CHECK(len == 12345);
        CHECK(emq_key((const uint8_t *)"orders", 6, e, 0, NULL, 0, out, sizeof out, &len) == EMQ_ERR_KIND);
        CHECK(emq_parse_key(e, 0, &parts) == EMQ_ERR_QUEUE);
        CHECK(emq_reserve(e, 0, out, sizeof out, &len) == EMQ_ERR_KIND);
        CHECK(emq_queue_prefix(e, 0, out, sizeof out, &len) == EMQ_ERR_QUEUE);
        CHECK(emq_job_prefix(e, 0, out, sizeof out, &len) == EMQ_ERR_QUEUE);
        size_t n = 77;
        CHECK(emq_prefix_bytes(e, 0, e, 0, &n) == EMQ_ERR_QUEUE && n == 77);
        CHECK(emq_prefix_bytes((const uint8_t *)"orders", 6, e, 0, &n) == EMQ_ERR_KIND && n == 77);
        CHECK(emq_xadd_id(e, 0, out, sizeof out, &len) == BRANDED_ERR_LENGTH);
        char id[14] = {'#'};
        CHECK(emq_from_xadd_id(e, 0, "EVT", 3, id) == BRANDED_ERR_CHARSET);
        CHECK(emq_from_xadd_id((const uint8_t *)"1704117200000-1620567", 21, empty(w), 0, id) == BRANDED_ERR_RANGE);
        CHECK(id[0] == '#');
        CHECK(emq_parse_acquire_error(e, 0) == EMQ_ERR_VALKEY);
        emq_lease_outcome outcome = EMQ_OUTCOME_COUNTED;
        CHECK(emq_read_lease_error(e, 0, 0, &outcome) == BRANDED_OK && outcome == EMQ_OUTCOME_FAULT);
        emq_redirect to = {0, 0, 0, 42, 0};
        CHECK(emq_parse_redirect(e, 0, &to) == EMQ_ERR_VALKEY && to.port == 42);
    }
    /* An id given with no bytes is an empty id, not "no id": the length gate.
     * Only a NULL id means none (and the job family needs one). */
    CHECK(emq_key((const uint8_t *)"orders", 6, (const uint8_t *)"job", 3, EMPTY_U8(1), 0, out, sizeof out, &len) ==
          BRANDED_ERR_LENGTH);
    CHECK(emq_key((const uint8_t *)"orders", 6, (const uint8_t *)"job", 3, EMPTY_U8(2), 0, out, sizeof out, &len) ==
          BRANDED_ERR_LENGTH);
    /* A key needs room: cap 0 with no buffer is EMQ_ERR_BUFFER, and the needed length. */
    len = 0;
    CHECK(emq_key((const uint8_t *)"orders", 6, (const uint8_t *)"pending", 7, NULL, 0, NULL, 0, &len) ==
          EMQ_ERR_BUFFER);
    CHECK(len == 20);
}

static void mint(void) {
    emq_minter *m = NULL;
    CHECK(emq_minter_new(5, &m) == BRANDED_OK && m != NULL);
    uint64_t ids[2] = {1, 1};
    size_t made = 99;
    /* A batch of none: OK, nothing written, the minter untouched. */
    CHECK(emq_minter_next_many(m, ids, 0, &made) == BRANDED_OK && made == 0 && ids[0] == 1);
    made = 99;
    CHECK(emq_minter_next_many(m, NULL, 0, &made) == BRANDED_OK && made == 0);
    uint64_t first = 0;
    CHECK(emq_minter_next_at(m, 1769526697641LL, &first) == BRANDED_OK);
    CHECK(first == (274557032793636864ULL | (5ULL << 12)));
    emq_minter_free(m);
}

int main(void) {
    codec();
    place();
    keyspace();
    mint();
    printf("empty_test: %d checks, %d failed\n", checks, failures);
    return failures != 0;
}
