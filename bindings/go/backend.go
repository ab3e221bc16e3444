package emqid

// Backend says which build of the core answers this process's calls:
//
//   - "wasm", the default: the core built for WebAssembly and translated to
//     Go source by wasm2go (internal/emqcore), compiled with the rest of the
//     program. Pure Go: no cgo, no C toolchain, no library to install, no
//     runtime or interpreter; any GOOS/GOARCH Go builds for. The name is the
//     build it was translated from.
//   - "cgo": a build with cgo and the tag emqid_cgo (go build -tags
//     emqid_cgo), which links the native library libemqid (pkg-config emqid):
//     the fewest nanoseconds per call.
//
// Both run the same core and give the same answers and errors; both take the
// same node claim on the host (SPEC.md §5.1), so processes of either kind on
// one EMQ_NODE refuse each other.
func Backend() string { return abiBackend }
