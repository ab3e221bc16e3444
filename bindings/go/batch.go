package emqid

import "unsafe"

// ParseMany is Parse of many texts in one cgo call: per id a fraction of
// Parse's cost, which is mostly cgo's fixed cost per call. Use it wherever
// ids come in batches (a page of rows, a stream read, a message's list).
// Each text meets Parse's gates on its own, ErrLength included, and the ids
// are Parse's. On the first text refused, ParseMany returns the ids before
// it and a *BatchError with its index, which errors.Is matches against the
// gate's sentinel (ErrLength, ErrNamespace, ErrCharset, ErrRange). An empty
// batch is an empty slice and no call.
func ParseMany(texts []string) ([]ID, error) {
	return ParseManyInto(make([]ID, len(texts)), texts)
}

// ParseManyInto is ParseMany writing into dst, which must have room for
// len(texts) ids (cap(dst) ≥ len(texts)), for callers that reuse their result
// slice: a fresh slice of ids is most of what ParseMany costs per id beyond
// the library's work.
func ParseManyInto(dst []ID, texts []string) ([]ID, error) {
	ids := dst[:len(texts)]
	if len(texts) == 0 {
		return ids, nil
	}
	p := packed(texts)
	defer packs.Put(p)
	snowflakes, err := p.decode()
	ids = ids[:len(snowflakes)]
	for i, s := range snowflakes {
		t := texts[i][:NSLen] // accepted, so IDLen bytes, the namespace first
		ids[i] = ID{ns: [NSLen]byte{t[0], t[1], t[2]}, snowflake: s}
	}
	return ids, err
}

// EncodeMany is Encode of many snowflakes of one namespace in one cgo call:
// per id a fraction of Encode's cost. On the first snowflake refused
// (ErrRange: one ≥ 2^63, or a namespace that is not three bytes A-Z, refused
// at index 0) it returns the texts before it and a *BatchError with its
// index. An empty batch is an empty slice and no call: nothing is refused.
//
// The texts share one allocation, 14 bytes each: a text kept alive keeps its
// whole batch's bytes alive too (copy it with strings.Clone to keep one of
// many for long).
func EncodeMany(ns string, snowflakes []uint64) ([]string, error) {
	texts := make([]string, len(snowflakes))
	if len(snowflakes) == 0 {
		return texts, nil
	}
	if err := checkNSLen(ns); err != nil {
		return texts[:0], &BatchError{Index: 0, Err: err}
	}
	// The library writes every text into one buffer that is never written
	// again once it returns, so the strings can be views of it (unsafe.String
	// requires that the bytes never change while a string refers to them).
	out := make([]byte, IDLen*len(snowflakes))
	p := packs.Get().(*pack) // for its count field: a local passed to cgo would move to the heap
	defer packs.Put(p)
	st := abiEncodeMany(ns, snowflakes, out, &p.done)
	done := p.done
	for i := range texts[:done] {
		texts[i] = unsafe.String(&out[i*IDLen], IDLen)
	}
	return texts[:done], checkBatch(st, int(done))
}
