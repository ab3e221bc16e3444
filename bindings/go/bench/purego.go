package bench

// The pure-Go floor: the branded id's codec and hash as a Go user would
// write them without emqid, in plain Go with no lookups beyond one table.
// It is an anchor, not a rival: it answers only the questions Parse, Encode
// and Hash32 answer for valid input, and refuses what they refuse (its errors
// are checked against theirs in purego_test.go), so its time is the least a
// call that does this work in Go can cost.

import "errors"

const (
	pureNSLen = 3
	pureIDLen = pureNSLen + 11
	// pureMaxSnowflake is the largest snowflake an id holds: 2^63-1.
	pureMaxSnowflake = 1<<63 - 1
)

// pureDigits is base62 in ASCII order, so a text's order is its value's.
const pureDigits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// pureDigitValue maps a byte to its digit, 0xFF for a byte that is none.
var pureDigitValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for v := range len(pureDigits) {
		t[pureDigits[v]] = byte(v)
	}
	return t
}()

var (
	errPureLength    = errors.New("pure-Go floor: not 14 bytes")
	errPureNamespace = errors.New("pure-Go floor: the namespace is not 3 bytes A-Z")
	errPureCharset   = errors.New("pure-Go floor: a byte outside base62")
	errPureRange     = errors.New("pure-Go floor: a snowflake above 2^63-1")
)

// pureID is what pureParse reads: emqid.ID's shape.
type pureID struct {
	ns        [pureNSLen]byte
	snowflake uint64
}

// pureParse reads "NNN" + 11 base62 digits, most significant first, refusing
// in emqid.Parse's order: length, namespace, charset, range.
func pureParse(text string) (pureID, error) {
	if len(text) != pureIDLen {
		return pureID{}, errPureLength
	}
	var id pureID
	for i := range pureNSLen {
		if text[i] < 'A' || text[i] > 'Z' {
			return pureID{}, errPureNamespace
		}
		id.ns[i] = text[i]
	}
	// Ten digits stay below 62^10 < 2^63, so only the last can overflow.
	var v uint64
	for i := pureNSLen; i < pureIDLen-1; i++ {
		d := pureDigitValue[text[i]]
		if d == 0xFF {
			return pureID{}, errPureCharset
		}
		v = v*62 + uint64(d)
	}
	d := pureDigitValue[text[pureIDLen-1]]
	if d == 0xFF {
		return pureID{}, errPureCharset
	}
	if v > (pureMaxSnowflake-uint64(d))/62 {
		return pureID{}, errPureRange
	}
	id.snowflake = v*62 + uint64(d)
	return id, nil
}

// pureEncode writes what pureParse reads: one allocation, the string.
func pureEncode(ns string, snowflake uint64) (string, error) {
	if len(ns) != pureNSLen || snowflake > pureMaxSnowflake {
		return "", errPureRange
	}
	var text [pureIDLen]byte
	for i := range pureNSLen {
		if ns[i] < 'A' || ns[i] > 'Z' {
			return "", errPureRange
		}
		text[i] = ns[i]
	}
	for i := pureIDLen - 1; i >= pureNSLen; i-- {
		text[i] = pureDigits[snowflake%62]
		snowflake /= 62
	}
	return string(text[:]), nil
}

// pureHash32 is SPEC.md §4's hash32 (one round of fmix64, the low 32 bits
// kept) written in Go.
func pureHash32(snowflake uint64) uint32 {
	k := snowflake
	k ^= k >> 33
	k *= 0xFF51AFD7ED558CCD
	k ^= k >> 33
	return uint32(k)
}
