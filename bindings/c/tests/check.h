/* The C test programs' one check macro: counts every check and reports each
 * failure with its place, so a program ends with "N passed, M failed". */
#ifndef EMQ_TEST_CHECK_H
#define EMQ_TEST_CHECK_H
#include <stdio.h>

static int checks = 0, failures = 0;

#define CHECK(cond)                                                          \
    do {                                                                     \
        checks++;                                                            \
        if (!(cond)) {                                                       \
            failures++;                                                      \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond);       \
        }                                                                    \
    } while (0)
#endif
