/* A host of the bus's branded_id.h, linked against libemqid: the drop-in test.
 * Compiled twice: against the bus's header, and against emq_id.h in its place
 * (DROPIN_WITH_EMQ_ID_H), so a bus host switching headers still compiles. */
#include <stdio.h>
#include <string.h>

#ifdef DROPIN_WITH_EMQ_ID_H
#include "emq_id.h"
#else
#include "branded_id.h"
#endif

#define CHECK(cond)                                                  \
    do {                                                             \
        if (!(cond)) {                                               \
            fprintf(stderr, "dropin: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            return 1;                                                \
        }                                                            \
    } while (0)

int main(void) {
    char out[BRANDED_LEN];
    CHECK(branded_encode("USR", 274557032793636864ULL, out) == BRANDED_OK);
    CHECK(memcmp(out, "USR0KHTOWnGLuC", BRANDED_LEN) == 0);
    CHECK(BRANDED_NS_LEN + BRANDED_PAYLOAD_LEN == BRANDED_LEN);

    char ns[BRANDED_NS_LEN];
    uint64_t snowflake = 0;
    CHECK(branded_decode("USR0NgWEfAEJfs", 14, ns, &snowflake) == BRANDED_OK);
    CHECK(memcmp(ns, "USR", BRANDED_NS_LEN) == 0 && snowflake == 320636799581945856ULL);

    CHECK(branded_decode("USR0KHTOWnGLu", 13, ns, &snowflake) == BRANDED_ERR_LENGTH);
    CHECK(branded_decode("usr0KHTOWnGLuC", 14, ns, &snowflake) == BRANDED_ERR_NAMESPACE);
    CHECK(branded_decode("USR0KHTOWnGL!C", 14, ns, &snowflake) == BRANDED_ERR_CHARSET);
    CHECK(branded_decode("USRzzzzzzzzzzz", 14, ns, &snowflake) == BRANDED_ERR_RANGE);
    CHECK(branded_hash32(274557032793636864ULL) == 234878118u);
    CHECK(branded_unix_ms(274557032793636864ULL) == 1769526697641ULL);
    CHECK(branded_unix_ms(0) == BRANDED_EPOCH_MS);
    puts("dropin: 11 passed, 0 failed");
    return 0;
}
