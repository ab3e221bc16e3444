package emqid

/*
#include "emq_id.h"
*/
import "C"

// IsValid reports whether text is a branded id: whether Parse would accept it,
// without building the ID or an error. Use it to filter; use Parse to learn
// which gate refused.
func IsValid(text string) bool {
	return C.emq_is_valid(charsOf(text), C.size_t(len(text))) != 0
}

// Compare orders two ids given as text, as their texts sort byte-wise (by
// namespace, then snowflake): -1, 0 or +1. An invalid id is its gate's
// error, a's before b's. For parsed ids, ID.Compare needs no check.
func Compare(a, b string) (int, error) {
	var order C.int
	if err := check(C.emq_compare(charsOf(a), C.size_t(len(a)), charsOf(b), C.size_t(len(b)), &order)); err != nil {
		return 0, err
	}
	return int(order), nil
}
