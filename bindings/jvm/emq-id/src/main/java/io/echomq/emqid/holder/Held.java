package io.echomq.emqid.holder;

import java.util.OptionalLong;

/**
 * A lease a {@link LeaseHolder} holds.
 *
 * @param node the leased node, 0 to {@link io.echomq.emqid.Contract#MAX_NODE}
 * @param previousMark the node's mark when this lease took it (unix ms), empty for a node never
 *     leased before: this lease's ids start after it
 * @param ordinal which of the holder's leases it is: 1 for the first, 2 after one was lost and
 *     another taken…
 */
public record Held(int node, OptionalLong previousMark, int ordinal) {}
