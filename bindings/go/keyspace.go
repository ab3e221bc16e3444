package emqid

import "sync"

// The kinds of key in the keyspace.
const (
	KindPending = "pending"
	KindActive  = "active"
	KindJob     = "job"
)

// QueueKey is the key of an id-less type for a queue (emq:{queue}:pending,
// emq:{queue}:g:vip:pending, ...); the emq-keyspace/1 kinds are pending or
// emq:{queue}:active. Errors: ErrQueue, then ErrKind.
func QueueKey(queue, kind string) (string, error) {
	return key(queue, kind, nil)
}

// JobKey is the key of one job, emq:{queue}:job:<id>. The id must pass the
// gates and be of namespace JOB (else ErrKind).
func JobKey(queue string, id string) (string, error) {
	return key(queue, KindJob, &id)
}

// Key builds a key of queue from its type, written as the bus writes it
// ("pending", "g:vip:pending", "job:JOB0KHTOWnGLuC:lock"), with id nil. The
// emq-keyspace/1 form Key(queue, "job", &id) is kept. Errors: ErrQueue, then
// ErrKind (no such family, a bad name, an id of another namespace) or the
// id's own gate.
func Key(queue, kind string, id *string) (string, error) {
	return key(queue, kind, id)
}

// Type is the shorthand for Key(queue, ty, nil): the key of queue of type ty.
func Type(queue, ty string) (string, error) {
	return key(queue, ty, nil)
}

// ParsedKey is a queue key read back: its queue, its family as a pattern
// ("g:<name>:pending"), and the family's parameter ("" when it takes none).
type ParsedKey struct {
	Queue  string
	Family string
	Param  string
}

// ParseKey reads a queue key back, the exact inverse of Key. ErrQueue when
// it is not emq:{queue}:<type> with a valid queue, else the type's error.
func ParseKey(key string) (ParsedKey, error) {
	parts, st := abiParseKey(key)
	if err := check(st); err != nil {
		return ParsedKey{}, err
	}
	patterns := familyPatterns()
	if int(parts.family) >= len(patterns) {
		return ParsedKey{}, check(statusKind)
	}
	family := patterns[parts.family]
	q := parts.queueOffset
	p := parts.paramOffset
	return ParsedKey{Queue: key[q : q+parts.queueLen], Family: family, Param: key[p : p+parts.paramLen]}, nil
}

// familyPatterns is the library's table of family patterns, read once
// (one cgo call per family at first use, none per ParseKey after).
var familyPatterns = sync.OnceValue(func() []string {
	var patterns []string
	for i := uint32(0); ; i++ {
		pattern, err := text(abiFamilyPattern(i))
		if err != nil {
			return patterns
		}
		patterns = append(patterns, pattern)
	}
})

// Reserve is the reserve's cross-queue key {emq}:<name> (one slot, disjoint
// from every queue key). ErrKind for a name outside 1-128 bytes of [A-Za-z0-9_.:-].
func Reserve(name string) (string, error) {
	return text(abiReserve(name))
}

// QueuePrefix is emq:{queue}:, the prefix every key of a queue starts with
// (the bus's scripts append a type to it).
func QueuePrefix(queue string) (string, error) {
	return text(abiQueuePrefix(queue))
}

// JobPrefix is emq:{queue}:job:, the prefix the bus's scripts append job ids to.
func JobPrefix(queue string) (string, error) {
	return text(abiJobPrefix(queue))
}

// PrefixBytes is the bytes a family's keys spend before their parameter
// (ty a family's head such as "job:" or "g:"), or a fixed type's key length.
func PrefixBytes(queue, ty string) (int, error) {
	n, st := abiPrefixBytes(queue, ty)
	return n, check(st)
}

// text is a text the library wrote, or its status's error.
func text(s string, st status) (string, error) {
	if err := check(st); err != nil {
		return "", err
	}
	return s, nil
}

func key(queue, kind string, id *string) (string, error) {
	return text(abiKey(queue, kind, id))
}
