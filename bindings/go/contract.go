package emqid

// Contract and Keyspace name the versions this package implements.
const (
	Contract = "branded-snowflake/1.0.0"
	Keyspace = "emq-keyspace/2"
)

// The contract's numbers. They come from the C header, which the core writes,
// so Go never re-types them: a change in the core reaches Go by a rebuild.
const (
	// IDLen is the length in bytes of an id's text: the namespace, then the
	// base62 payload.
	IDLen = abiBrandedLen
	// NSLen is the length in bytes of a namespace (letters A-Z).
	NSLen = abiBrandedNSLen
	// EpochMs is the Unix millisecond of snowflake time 0 (2024-01-01 UTC).
	EpochMs = abiBrandedEpochMs
	// MaxNode is the highest node a snowflake can carry; nodes run from 0.
	MaxNode = abiMaxNode
	// MaxSeq is the highest sequence within one millisecond of one node.
	MaxSeq = abiMaxSeq
	// MaxSnowflake is the highest snowflake (2^63 - 1): every snowflake fits
	// an int64 as well as a uint64.
	MaxSnowflake = abiMaxSnowflake
	// Slots is the number of Valkey Cluster hash slots; Slot answers below it.
	Slots = abiSlots
	// MaxQueueLen is the longest queue name in bytes.
	MaxQueueLen = abiMaxQueueLen
	// MaxKeyLen is the longest key the keyspace builds, in bytes.
	MaxKeyLen = abiMaxKeyLen
)
