package emqid

// Backend says which build of the core answers this process's calls:
//
//   - "wasm", the default: the core compiled to WebAssembly (embedded in the
//     module) and run by wazero, in pure Go. No C toolchain, no cgo, no
//     library to install; any GOOS/GOARCH Go builds for.
//   - "cgo": a build with cgo and the tag emqid_cgo (go build -tags
//     emqid_cgo), which links the native library libemqid (pkg-config emqid):
//     the fewest nanoseconds per call.
//
// Both run the same core and give the same answers and errors; both take the
// same node claim on the host (SPEC.md §5.1), so processes of either kind on
// one EMQ_NODE refuse each other.
func Backend() string { return abiBackend }
