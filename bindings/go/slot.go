package emqid

import "unsafe"

// Slot is the Valkey Cluster hash slot (0-16383) of a key's bytes.
func Slot(key []byte) uint16 {
	return slot(unsafe.SliceData(key), len(key))
}

// SlotString is Slot of a string's bytes (UTF-8, as the server receives them).
func SlotString(key string) uint16 {
	return slot(unsafe.StringData(key), len(key))
}

func slot(data *byte, n int) uint16 {
	// Cannot fail: a Go slice or string of length n > 0 has a non-nil data pointer.
	return uint16(abiSlotI32(data, n))
}

// SlotMany is the slots of many keys in one cgo call. Per key it costs a
// fraction of Slot's, whose time is mostly cgo's fixed per-call cost: use it
// whenever you route a batch.
func SlotMany(keys [][]byte) []uint16 {
	return SlotManyInto(make([]uint16, len(keys)), keys)
}

// SlotManyInto is SlotMany writing into dst (len(dst) must be len(keys)),
// for callers that reuse their result slice.
func SlotManyInto(dst []uint16, keys [][]byte) []uint16 {
	p := packed(keys)
	defer packs.Put(p)
	return p.slots(dst[:len(keys)])
}

// SlotManyStrings is SlotMany over strings.
func SlotManyStrings(keys []string) []uint16 {
	p := packed(keys)
	defer packs.Put(p)
	return p.slots(make([]uint16, len(keys)))
}

// Hashtag is the part of the key the cluster hashes: the bytes between the
// first '{' and the next '}' when not empty, else the whole key. It is a
// subslice of key; nothing is copied.
func Hashtag(key []byte) []byte {
	off, n := abiHashtag(key)
	return key[off : off+n]
}
