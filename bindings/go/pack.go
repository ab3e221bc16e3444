package emqid

import "sync"

// pack lays many keys or ids back to back for the ABI's batch calls
// (emq_slot_many, emq_decode_many), each with its length: Go may not hand C a
// slice of Go pointers (a []string is one), so the items are copied into one
// buffer, reused across calls, and cross cgo once. The lengths are uintptr,
// the ABI layer's to convert to size_t (see abi.go).
type pack struct {
	data       []byte
	lens       []uintptr
	snowflakes []uint64 // emq_decode_many's output
	done       uintptr  // emq_decode_many's and emq_encode_many's count: a field, so cgo moves no variable to the heap
}

var packs = sync.Pool{New: func() any { return new(pack) }}

// packed is a pack from the pool holding items; give it back with packs.Put.
// The loop keeps the slices in locals, stored once (a slice stored into the
// pooled pack is a pointer write, with a write barrier while the GC runs), and
// moves an item of IDLen bytes, what every valid id is, without memmove.
func packed[T string | []byte](items []T) *pack {
	p := packs.Get().(*pack)
	data, lens := p.data[:0], p.lens
	if cap(lens) < len(items) {
		lens = make([]uintptr, len(items))
	}
	lens = lens[:len(items)]
	for i, item := range items {
		if n := len(data); len(item) == IDLen && cap(data)-n >= IDLen {
			// Both lengths are constants, so the compiler moves the bytes in place.
			data = data[:n+IDLen]
			copy(data[n:n+IDLen], item[:IDLen])
		} else {
			data = append(data, item...)
		}
		lens[i] = uintptr(len(item))
	}
	p.data, p.lens = data, lens
	return p
}

// slots is emq_slot_many over the packed keys, into out (len(out) of them).
func (p *pack) slots(out []uint16) []uint16 {
	if len(out) == 0 {
		return out
	}
	abiSlotMany(p.data, p.lens, out)
	return out
}

// decode is emq_decode_many over the packed ids (at least one): the
// snowflakes of the ids before the first refused, and its *BatchError. The
// snowflakes are the pack's: read them before giving it back.
func (p *pack) decode() ([]uint64, error) {
	n := len(p.lens)
	if cap(p.snowflakes) < n {
		p.snowflakes = make([]uint64, n)
	}
	st := abiDecodeMany(p.data, p.lens, p.snowflakes[:n], &p.done)
	return p.snowflakes[:p.done], checkBatch(st, int(p.done))
}
