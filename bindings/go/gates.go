package emqid

// coreGate is one gate of the core's list as the ABI reports it: its name,
// and the error this package makes of the status the ABI answers for it.
type coreGate struct {
	name string
	err  error
}

// coreGates is the core's gate list in contract order, read through the ABI
// (emq_gate_*), each status mapped by check, the path every call takes. The
// gate coverage test walks it, so a gate added to the core fails that test
// until this package has a sentinel for it.
func coreGates() []coreGate {
	gates := make([]coreGate, abiGateCount())
	for i := range gates {
		gates[i] = coreGate{name: abiGateName(i), err: check(abiGateStatus(i))}
	}
	return gates
}
