package io.echomq.emqid;

import java.util.OptionalLong;

/**
 * The acquire script's reply, read by {@link Lease#parseAcquire}.
 *
 * @param node the node now leased
 * @param previousMark the node's mark before this acquire (unix ms), empty for a node never leased
 */
public record Acquired(int node, OptionalLong previousMark) {}
