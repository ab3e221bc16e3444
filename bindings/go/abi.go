package emqid

// Every call into the library goes through one layer of unexported functions
// with Go types: abi followed by the C function's name without emq_, in Go's
// case (abiParseI64 is emq_parse_i64, abiBrandedEncode is branded_encode,
// abiXaddID is emq_xadd_id). abi_cgo.go implements the layer over cgo; no
// other file of the package reaches the library, so a second backend is one
// more file implementing the same functions.
//
// Besides the functions, a backend defines the header's numbers (abiBrandedLen
// ... abiNoNode, which contract.go and the API files name) and the statuses
// (statusOK ... statusValkey).
//
// Outputs go to Go memory the caller owns (out *[IDLen]byte, out []uint16,
// a done *uintptr in a pooled struct), never to a type of the backend.
// Lengths and counts cross as Go's int and uintptr: the layer, not the API
// files, converts them to the ABI's size_t, which is 64-bit for the native
// library and will be 32-bit for the wasm32 one.

// status is the library's branded_status: statusOK (0), or the status of a
// gate, which refusal turns into its *Error.
type status int32

// minterHandle is an emq_minter of the library as an integer: the C pointer
// for cgo, an offset in the module's memory for WebAssembly. 0 is none (the
// library's NULL), which every call refuses (gate "null").
type minterHandle uintptr

// leasedMinterHandle is an emq_leased_minter of the library, as minterHandle.
type leasedMinterHandle uintptr

// leaseKeeperHandle is an emq_lease_keeper of the library, as minterHandle.
type leaseKeeperHandle uintptr

// redirectParts is emq_redirect, ParseRedirect's parts: where the host lies
// in the reply (length 0: none), the slot, the port, and whether it is ASK.
type redirectParts struct {
	hostOffset, hostLen int
	slot, port          uint16
	ask                 bool
}

// keyParts is emq_parsed_key, ParseKey's parts: where the queue and the
// family's parameter lie in the key, and the family's index.
type keyParts struct {
	queueOffset, queueLen int
	family                uint32
	paramOffset, paramLen int
}
