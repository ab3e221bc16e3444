package io.echomq.emqid;

/**
 * The process-wide minter's node and where it came from.
 *
 * @param node 0 to {@link Contract#MAX_NODE}
 * @param source where it came from
 */
public record ProcessNode(int node, NodeSource source) {}
