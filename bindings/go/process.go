package emqid

import (
	"fmt"
	"log/slog"
	"sync"
)

// NodeSource says where the process's node came from.
type NodeSource int

const (
	// NodeFromEnv: the EMQ_NODE environment variable.
	NodeFromEnv NodeSource = iota
	// NodeDrawn: EMQ_NODE was unset, so a node no other live process of this
	// host holds was drawn. Another host can draw the same node: set EMQ_NODE
	// (or use a lease) in production.
	NodeDrawn
	// NodeSet: given with SetProcessNode.
	NodeSet
)

// String names the source: "env", "drawn" or "set".
func (s NodeSource) String() string {
	switch s {
	case NodeFromEnv:
		return "env"
	case NodeDrawn:
		return "drawn"
	default:
		return "set"
	}
}

// Mint mints an id in ns with the process-wide minter: one mint state for the
// whole process (safe for concurrent use), on a node the process holds on
// this host for its lifetime. The first call takes the node (see ProcessNode).
// Errors: ErrRange for a bad namespace or EMQ_NODE, ErrNode when another live
// process of this host holds the node.
func Mint(ns string) (ID, error) {
	if err := checkNSLen(ns); err != nil {
		return ID{}, err
	}
	out := make([]byte, IDLen)
	st := abiMint(ns, (*[IDLen]byte)(out))
	if st == statusNode {
		_, _, err := ProcessNode() // says which node, and who holds it
		if err != nil {
			return ID{}, err
		}
	}
	if err := check(st); err != nil {
		return ID{}, err
	}
	drawnNotice.Do(noticeDrawn)
	return ParseBytes(out)
}

// drawnNotice says once per process that the node was drawn: the first Mint
// took it, so every later Mint costs one atomic load more.
var drawnNotice sync.Once

// noticeDrawn warns through log/slog's default logger (the application
// chooses where that goes, or silences it) when no node was given.
func noticeDrawn() {
	node, source, err := ProcessNode()
	if err != nil || source != NodeDrawn {
		return
	}
	slog.Warn("emqid: EMQ_NODE is not set: this process mints with a node drawn among the nodes no live "+
		"process of this host holds; another host can draw it too, and then ids collide. Give each "+
		"process a node of its own (EMQ_NODE, SetProcessNode) or take one with a lease",
		"node", node, "code", "EMQ_ID_DRAWN_NODE")
}

// ProcessNode takes this process's node if it has none yet, and reports it:
// SetProcessNode's, else EMQ_NODE, else a drawn node. Taking it takes the
// node's host-local claim (a lock file in EMQ_NODE_DIR, released when the
// process dies), so a node another live process of this host holds is
// refused with ErrNode, naming the holder's pid.
func ProcessNode() (node int, source NodeSource, err error) {
	n, src, holder, st := abiProcessNode()
	if st == statusNode {
		return 0, 0, nodeError(int(n), holder)
	}
	if err := check(st); err != nil {
		return 0, 0, err
	}
	return int(n), NodeSource(src), nil
}

// SetProcessNode makes node this process's node in place of EMQ_NODE, taking
// its host-local claim. ErrRange outside 0..=MaxNode; ErrNode when another live
// process of this host holds it, or this process already mints with another
// node (a process keeps its node for its lifetime).
func SetProcessNode(node int) error {
	if err := checkNode(node); err != nil {
		return err
	}
	st := abiProcessSetNode(uint16(node))
	if st == statusNode {
		return refusal(statusNode, fmt.Sprintf("node %d could not be taken: another live process of this host holds it, "+
			"this process already mints with another node (a process keeps its node for its lifetime), "+
			"or the claim directory (EMQ_NODE_DIR) cannot be used", node))
	}
	return check(st)
}

func nodeError(node int, holder uint32) error {
	switch {
	case node == abiNoNode:
		return refusal(statusNode, "no node could be taken on this host: every node is held, or the claim directory (EMQ_NODE_DIR, default /tmp/emq-id) cannot be used")
	case holder != 0:
		return refusal(statusNode, fmt.Sprintf("node %d is held by process %d on this host: give each minting process its own node (EMQ_NODE)", node, holder))
	default:
		return refusal(statusNode, fmt.Sprintf("node %d could not be taken on this host: another live process holds it, or the claim directory (EMQ_NODE_DIR, default /tmp/emq-id) cannot be used", node))
	}
}
