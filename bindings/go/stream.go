package emqid

// XaddID is the stream entry id of an EVT id: "<unix_ms>-<tail22>", the id's
// Unix milliseconds and its snowflake's low 22 bits. Ids of one namespace sort
// as their entry ids, so a stream written in mint order never refuses an XADD.
// The id's gates, then ErrKind for another namespace.
func XaddID(id string) (string, error) {
	return text(abiXaddID(id))
}

// FromXaddID is the id of namespace ns behind a stream entry id: ErrCharset
// for parts that are not decimal, ErrRange for a time or tail no snowflake
// has, or a namespace that is not three bytes A-Z.
func FromXaddID(entry, ns string) (ID, error) {
	out := make([]byte, IDLen)
	if err := check(abiFromXaddID(entry, ns, (*[IDLen]byte)(out))); err != nil {
		return ID{}, err
	}
	return ParseBytes(out)
}
