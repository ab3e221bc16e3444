/* A host of the bus's branded_id.h, linked against libemqid: the drop-in test. */
#include <stdio.h>
#include <string.h>

#include "branded_id.h"

#define CHECK(cond)                                                  \
    do {                                                             \
        if (!(cond)) {                                               \
            fprintf(stderr, "dropin: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            return 1;                                                \
        }                                                            \
    } while (0)

int main(void) {
    char out[14];
    CHECK(branded_encode("USR", 274557032793636864ULL, out) == BRANDED_OK);
    CHECK(memcmp(out, "USR0KHTOWnGLuC", 14) == 0);

    char ns[3];
    uint64_t snowflake = 0;
    CHECK(branded_decode("USR0NgWEfAEJfs", 14, ns, &snowflake) == BRANDED_OK);
    CHECK(memcmp(ns, "USR", 3) == 0 && snowflake == 320636799581945856ULL);

    CHECK(branded_decode("USR0KHTOWnGLu", 13, ns, &snowflake) == BRANDED_ERR_LENGTH);
    CHECK(branded_decode("usr0KHTOWnGLuC", 14, ns, &snowflake) == BRANDED_ERR_NAMESPACE);
    CHECK(branded_decode("USR0KHTOWnGL!C", 14, ns, &snowflake) == BRANDED_ERR_CHARSET);
    CHECK(branded_decode("USRzzzzzzzzzzz", 14, ns, &snowflake) == BRANDED_ERR_RANGE);
    CHECK(branded_hash32(274557032793636864ULL) == 234878118u);
    CHECK(branded_unix_ms(274557032793636864ULL) == 1769526697641ULL);
    puts("dropin: 9 passed, 0 failed");
    return 0;
}
