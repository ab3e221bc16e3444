package emqid

// IsValid reports whether text is a branded id: whether Parse would accept it,
// without building the ID or an error. Use it to filter; use Parse to learn
// which gate refused.
func IsValid(text string) bool {
	return abiIsValid(text)
}

// Compare orders two ids given as text, as their texts sort byte-wise (by
// namespace, then snowflake): -1, 0 or +1. An invalid id is its gate's
// error, a's before b's. For parsed ids, ID.Compare needs no check.
func Compare(a, b string) (int, error) {
	order, st := abiCompare(a, b)
	if err := check(st); err != nil {
		return 0, err
	}
	return order, nil
}
