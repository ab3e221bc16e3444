//go:build !(cgo && emqid_cgo)

package emqid

// The pure-Go build's layer (see abi.go): the library compiled to
// WebAssembly (abi_wasmcore.go), the default wherever the package builds. A
// build with cgo and the tag emqid_cgo links the native library instead
// (abi_cgo.go). The numbers and statuses are abi_purego_numbers.go's,
// generated from the library's header.

// abiBackend is what Backend says.
const abiBackend = "wasm"

var (
	abiStatusName            = wasmStatusName
	abiTrapDetail            = wasmTrapDetail
	abiGateCount             = wasmGateCount
	abiGateName              = wasmGateName
	abiGateStatus            = wasmGateStatus
	abiSelfCheck             = wasmSelfCheck
	abiSelfCheckVectors      = wasmSelfCheckVectors
	abiParseI64              = wasmParseI64
	abiBrandedEncode         = wasmBrandedEncode
	abiDecodeMany            = wasmDecodeMany
	abiEncodeMany            = wasmEncodeMany
	abiBrandedHash32         = wasmBrandedHash32
	abiBrandedUnixMs         = wasmBrandedUnixMs
	abiNode                  = wasmNode
	abiSeq                   = wasmSeq
	abiMinFor                = wasmMinFor
	abiIsValid               = wasmIsValid
	abiCompare               = wasmCompare
	abiXaddID                = wasmXaddID
	abiFromXaddID            = wasmFromXaddID
	abiSlotI32               = wasmSlotI32
	abiSlotMany              = wasmSlotMany
	abiHashtag               = wasmHashtag
	abiKey                   = wasmKey
	abiParseKey              = wasmParseKey
	abiFamilyPattern         = wasmFamilyPattern
	abiReserve               = wasmReserve
	abiQueuePrefix           = wasmQueuePrefix
	abiJobPrefix             = wasmJobPrefix
	abiPrefixBytes           = wasmPrefixBytes
	abiMintStep              = wasmMintStep
	abiMinterNew             = wasmMinterNew
	abiMinterFree            = wasmMinterFree
	abiMinterNextI64         = wasmMinterNextI64
	abiMinterNextMany        = wasmMinterNextMany
	abiMint                  = wasmMint
	abiProcessNode           = wasmProcessNode
	abiProcessSetNode        = wasmProcessSetNode
	abiLeaseScriptCount      = wasmLeaseScriptCount
	abiLeaseScriptName       = wasmLeaseScriptName
	abiLeaseScriptText       = wasmLeaseScriptText
	abiLeaseScriptKey        = wasmLeaseScriptKey
	abiLeaseScriptArg        = wasmLeaseScriptArg
	abiLeaseProtocol         = wasmLeaseProtocol
	abiLeaseKey              = wasmLeaseKey
	abiParseAcquire          = wasmParseAcquire
	abiParseAcquireError     = wasmParseAcquireError
	abiParseRenewal          = wasmParseRenewal
	abiParseWait             = wasmParseWait
	abiLeaseWaitMs           = wasmLeaseWaitMs
	abiLeaseTermsCheck       = wasmLeaseTermsCheck
	abiLeasedMinterStart     = wasmLeasedMinterStart
	abiLeasedMinterFree      = wasmLeasedMinterFree
	abiLeasedMinterNextI64   = wasmLeasedMinterNextI64
	abiLeasedMinterNextMark  = wasmLeasedMinterNextMark
	abiLeasedMinterRenewed   = wasmLeasedMinterRenewed
	abiLeasedMinterStop      = wasmLeasedMinterStop
	abiLeasedMinterHighWater = wasmLeasedMinterHighWater
	abiLeasedMinterFenceMs   = wasmLeasedMinterFenceMs
	abiLeaseOutcomeName      = wasmLeaseOutcomeName
	abiLeaseNextName         = wasmLeaseNextName
	abiLeaseActionName       = wasmLeaseActionName
	abiLeasePhaseName        = wasmLeasePhaseName
	abiReadLeaseError        = wasmReadLeaseError
	abiLeaseOutcomeOfWrite   = wasmLeaseOutcomeOfWrite
	abiParseRedirect         = wasmParseRedirect
	abiLeaseKeeperNew        = wasmLeaseKeeperNew
	abiLeaseKeeperFree       = wasmLeaseKeeperFree
	abiLeaseKeeperNext       = wasmLeaseKeeperNext
	abiLeaseKeeperSettle     = wasmLeaseKeeperSettle
	abiLeaseKeeperPhase      = wasmLeaseKeeperPhase
	abiLeaseKeeperRelease    = wasmLeaseKeeperRelease
	abiLeaseRefusal          = wasmLeaseRefusal
	abiLeaseRefusalDetail    = wasmLeaseRefusalDetail
	abiLeaseRenewEveryMs     = wasmLeaseRenewEveryMs
	abiLeaseRetryMs          = wasmLeaseRetryMs
)
