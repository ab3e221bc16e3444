/* The bus's existing native ABI, exactly as a host built against it declares it:
 * the four branded_* symbols, their statuses and its four macros, nothing else. dropin.c compiles
 * against this header (not emq_id.h) and must link against libemqid unchanged. */
#ifndef BRANDED_ID_H
#define BRANDED_ID_H
#include <stddef.h>
#include <stdint.h>

#define BRANDED_LEN 14
#define BRANDED_NS_LEN 3
#define BRANDED_PAYLOAD_LEN 11
#define BRANDED_EPOCH_MS 1704067200000ULL

typedef enum { BRANDED_OK = 0, BRANDED_ERR_LENGTH = 1, BRANDED_ERR_NAMESPACE = 2, BRANDED_ERR_CHARSET = 3, BRANDED_ERR_RANGE = 4 } branded_status;

branded_status branded_encode(const char ns[3], uint64_t snowflake, char out[14]);
branded_status branded_decode(const char *id, size_t len, char ns_out[3], uint64_t *snowflake_out);
uint32_t branded_hash32(uint64_t key);
uint64_t branded_unix_ms(uint64_t snowflake);
#endif
