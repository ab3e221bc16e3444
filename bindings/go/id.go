package emqid

import (
	"database/sql/driver"
	"fmt"
	"time"
	"unsafe"
)

// ID is a branded id: a namespace of three letters A-Z and a snowflake below
// 2^63. The zero value is not a valid id. IDs compare with ==, and Compare
// orders them as their text sorts byte-wise.
type ID struct {
	ns        [NSLen]byte
	snowflake uint64
}

// NewID is the id of a namespace and snowflake; ErrRange when either is invalid.
func NewID(ns string, snowflake uint64) (ID, error) {
	if _, err := Encode(ns, snowflake); err != nil {
		return ID{}, err
	}
	return withNS(ID{snowflake: snowflake}, ns), nil
}

// Parse reads the 14-byte text form. Errors: ErrLength, ErrNamespace,
// ErrCharset, ErrRange, checked in that order.
func Parse(text string) (ID, error) {
	s, err := parseSnowflake(unsafe.StringData(text), len(text))
	if err != nil {
		return ID{}, err
	}
	return withNS(ID{snowflake: s}, text), nil
}

// MustParse is Parse for known-good constants; it panics on error.
func MustParse(text string) ID {
	id, err := Parse(text)
	if err != nil {
		panic(err)
	}
	return id
}

// ParseBytes is Parse over raw bytes (any bytes: the gates decide).
func ParseBytes(text []byte) (ID, error) {
	s, err := parseSnowflake(unsafe.SliceData(text), len(text))
	if err != nil {
		return ID{}, err
	}
	return withNS(ID{snowflake: s}, text), nil
}

// withNS is id with the namespace taken from the first bytes of text, which
// the library has already accepted (Parse) or the caller has checked (NewID).
// The copy's length is a constant: three bytes moved in place, no memmove call.
func withNS[T string | []byte](id ID, text T) ID {
	copy(id.ns[:], text[:NSLen])
	return id
}

// parseSnowflake decodes through emq_parse_i64, which returns the value (no
// out-parameter to escape to the heap); on success the namespace is the
// input's first three bytes.
func parseSnowflake(data *byte, n int) (uint64, error) {
	v := abiParseI64(data, n)
	if v < 0 {
		return 0, check(status(-v))
	}
	return uint64(v), nil
}

// Encode is the 14-byte text of (ns, snowflake). ErrRange for a snowflake
// ≥ 2^63 and for a namespace that is not three bytes A-Z.
func Encode(ns string, snowflake uint64) (string, error) {
	if err := checkNSLen(ns); err != nil {
		return "", err
	}
	// The result's own bytes are the output buffer: one allocation, no copy.
	out := make([]byte, IDLen)
	if err := check(abiBrandedEncode(ns, snowflake, (*[IDLen]byte)(out))); err != nil {
		return "", err
	}
	return unsafe.String(&out[0], IDLen), nil
}

// checkNSLen refuses a namespace of the wrong length before it reaches the
// library, whose functions taking a namespace read exactly NSLen bytes of it.
func checkNSLen(ns string) error {
	if len(ns) != NSLen {
		return rangeError(fmt.Sprintf("a namespace is %d bytes A-Z", NSLen))
	}
	return nil
}

// NS is the namespace.
func (id ID) NS() string { return string(id.ns[:]) }

// Snowflake is the 63-bit snowflake.
func (id ID) Snowflake() uint64 { return id.snowflake }

// String is the 14-byte text form ("" for the zero ID).
func (id ID) String() string {
	text, err := Encode(string(id.ns[:]), id.snowflake)
	if err != nil {
		return ""
	}
	return text
}

// UnixMs is the Unix time in milliseconds at which the id was minted.
func (id ID) UnixMs() uint64 { return UnixMs(id.snowflake) }

// Time is the instant the id was minted.
func (id ID) Time() time.Time { return time.UnixMilli(int64(id.UnixMs())) }

// Node is the minting node (0..=MaxNode).
func (id ID) Node() int { return int(abiNode(id.snowflake)) }

// Seq is the sequence within the millisecond (0..=MaxSeq).
func (id ID) Seq() int { return int(abiSeq(id.snowflake)) }

// Hash32 is the contract's placement hash of the id's snowflake.
func (id ID) Hash32() uint32 { return Hash32(id.snowflake) }

// Compare orders ids as their texts sort byte-wise: -1, 0 or +1.
func (id ID) Compare(other ID) int {
	for i := range id.ns {
		if id.ns[i] != other.ns[i] {
			if id.ns[i] < other.ns[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case id.snowflake < other.snowflake:
		return -1
	case id.snowflake > other.snowflake:
		return 1
	}
	return 0
}

// MarshalText implements encoding.TextMarshaler (JSON, YAML, SQL drivers).
func (id ID) MarshalText() ([]byte, error) {
	text, err := Encode(string(id.ns[:]), id.snowflake)
	if err != nil {
		return nil, err
	}
	return []byte(text), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with Parse's gates.
func (id *ID) UnmarshalText(text []byte) error {
	parsed, err := ParseBytes(text)
	if err != nil {
		return err
	}
	*id = parsed
	return nil
}

// Value implements driver.Valuer: an ID is stored as its text.
func (id ID) Value() (driver.Value, error) {
	return id.MarshalText()
}

// Scan implements sql.Scanner from text or bytes, with Parse's gates. Any
// other value, NULL included (scan a nullable column into sql.Null[ID]), is
// a plain error naming its Go type, not an *Error: no gate of the contract
// judged it, the column simply does not hold text.
func (id *ID) Scan(src any) error {
	switch v := src.(type) {
	case string:
		return id.UnmarshalText([]byte(v))
	case []byte:
		return id.UnmarshalText(v)
	}
	return fmt.Errorf("emqid: an ID scans from a string or []byte, not %T", src)
}

// Hash32 is the contract's 32-bit placement hash of a snowflake.
func Hash32(snowflake uint64) uint32 { return abiBrandedHash32(snowflake) }

// UnixMs is the Unix time in milliseconds of a snowflake.
func UnixMs(snowflake uint64) uint64 { return abiBrandedUnixMs(snowflake) }

// MinFor is the smallest snowflake minted at or after t: the lower bound of a
// time-range scan. 0 before 2024-01-01; ErrRange past the 41-bit limit.
func MinFor(t time.Time) (uint64, error) { return MinForUnixMs(t.UnixMilli()) }

// MinForUnixMs is MinFor over Unix milliseconds.
func MinForUnixMs(unixMs int64) (uint64, error) {
	s, st := abiMinFor(unixMs)
	if err := check(st); err != nil {
		return 0, err
	}
	return s, nil
}
